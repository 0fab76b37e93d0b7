"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Problem } from "../../../../problem";
import { Busy } from "../../../../query-state";
import { useTRPC } from "../../../../trpc-client";
import { ReadOnlyNote, useMayChange } from "../../../may-change";
import { CampaignForm, formOfSettings } from "../../campaign-form";

export function EditCampaign({ id }: { id: string }) {
  const trpc = useTRPC();
  const settings = useQuery(trpc.campaigns.settings.queryOptions({ id }));
  const mayChange = useMayChange(settings.data?.advertiserId ?? "");
  return (
    <>
      <p>
        <Link href={`/dashboard/campaigns/${encodeURIComponent(id)}`}>← The campaign</Link>
      </p>
      <h1>Edit campaign</h1>
      {settings.error ? (
        <Problem
          message={settings.error.data?.code === "NOT_FOUND" ? "There is no such campaign, or it is not one of this account's." : settings.error.message}
        />
      ) : !settings.data || mayChange === undefined ? (
        <Busy what="the campaign" />
      ) : !mayChange ? (
        <ReadOnlyNote what="this campaign" />
      ) : (
        <CampaignForm advertiserId={settings.data.advertiserId} campaignId={id} initial={formOfSettings(settings.data)} />
      )}
    </>
  );
}
