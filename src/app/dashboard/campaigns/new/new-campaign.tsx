"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Problem } from "../../../problem";
import { Busy, Empty } from "../../../query-state";
import { useTRPC } from "../../../trpc-client";
import { ReadOnlyNote, useMayChange } from "../../may-change";
import { CampaignForm, NEW_CAMPAIGN } from "../campaign-form";

export function NewCampaign() {
  const trpc = useTRPC();
  const accounts = useQuery(trpc.accounts.list.queryOptions());
  const advertisers = (accounts.data ?? []).filter((a) => a.kind === "advertiser");
  const [chosen, setChosen] = useState("");
  const advertiserId = chosen || advertisers[0]?.id || "";
  const mayChange = useMayChange(advertiserId);
  return (
    <>
      <p>
        <Link href="/dashboard/campaigns">← Campaigns</Link>
      </p>
      <h1>New campaign</h1>
      {accounts.error ? (
        <Problem about="The advertisers could not be loaded" message={accounts.error.message} />
      ) : accounts.isPending || mayChange === undefined ? (
        <Busy what="advertisers" />
      ) : advertisers.length === 0 ? (
        <Empty>Campaigns belong to advertisers, and this account is not one.</Empty>
      ) : !mayChange ? (
        <ReadOnlyNote what="this account's campaigns" />
      ) : (
        <>
          {advertisers.length > 1 ? (
            <div className="toolbar">
              <label>
                Advertiser
                <select value={advertiserId} onChange={(e) => setChosen(e.target.value)}>
                  {advertisers.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.name}
                    </option>
                  ))}
                </select>
              </label>
            </div>
          ) : null}
          <CampaignForm key={advertiserId} advertiserId={advertiserId} initial={NEW_CAMPAIGN} />
        </>
      )}
    </>
  );
}
