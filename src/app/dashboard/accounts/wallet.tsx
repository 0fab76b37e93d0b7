"use client";
// An advertiser's wallet on its account page: staff top it up in two steps (the amount, then a
// confirmation that names the account and the balance it will reach), and everyone who sees the
// account reads its ledger, each top-up and each day's charges, newest first, over a range
// (src/server/accounts/wallet-ledger.ts). A top-up carries an id made when it is confirmed, so a
// second click or a retry of the same confirmation tops up once.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { FieldProblem, Problem } from "@/app/problem";
import { ZTopUpInput } from "@/server/accounts/account-input";
import type { LedgerRow } from "@/server/accounts/wallet-ledger";
import { useTRPC } from "../../trpc-client";
import { QueryTable } from "../data-table";
import { formatMoney, RangePicker } from "../figures";
import type { TableColumn } from "../table-columns";
import { useUrlRange } from "../url-state";

/** The ledger's columns; its times and days are the account's local ones, in `timeZone`. */
const ledgerColumns = (timeZone: string): TableColumn<LedgerRow>[] => [
  { id: "when", label: `When (${timeZone})`, kind: "text", value: (r) => r.when },
  { id: "entry", label: "Entry", kind: "text", value: (r) => (r.entry === "top-up" ? "Top-up" : "Charges for the day") },
  { id: "amount", label: "Amount", kind: "money", value: (r) => r.amount, total: "sum" },
  { id: "by", label: "By", kind: "text", value: (r) => r.by ?? "" },
  { id: "balanceAfter", label: "Balance after", kind: "money", value: (r) => r.balanceAfter },
];

interface Confirming {
  amount: number;
  requestId: string;
}

// Over 80 lines on purpose: the two steps of a top-up and their messages read best in one place.
export function WalletTopUp({ account }: { account: { id: string; name: string; currency: string; walletBalance: number } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Confirming | null>(null);
  const [done, setDone] = useState<{ amount: number; balance: number } | null>(null);
  const topUp = useMutation(
    trpc.accounts.topUp.mutationOptions({
      onSuccess: (result, input) => {
        setDone({ amount: input.amount, balance: result.walletBalance });
        setConfirming(null);
        setAmount("");
        void queryClient.invalidateQueries({ queryKey: trpc.accounts.pathKey() });
      },
    }),
  );
  const show = (value: number) => formatMoney(value, account.currency);

  const ask = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZTopUpInput.safeParse({ accountId: account.id, amount: amount === "" ? Number.NaN : Number(amount) });
    if (!parsed.success) return setProblem(parsed.error.issues[0]?.message ?? "is not an amount");
    setProblem(null);
    setDone(null);
    topUp.reset();
    setConfirming({ amount: parsed.data.amount, requestId: crypto.randomUUID() });
  };
  const refused = topUp.error?.data?.fieldErrors?.amount;

  return (
    <>
      <form className="toolbar" noValidate onSubmit={ask} aria-label="Top up the wallet">
        <div className="field">
          <label>
            Top-up amount
            <input
              type="number"
              min="0"
              step="0.01"
              value={amount}
              disabled={confirming !== null}
              onChange={(e) => {
                setAmount(e.target.value);
                setProblem(null);
              }}
              aria-invalid={problem || refused ? true : undefined}
              aria-describedby={problem || refused ? "top-up-error" : undefined}
            />
          </label>
          <FieldProblem id="top-up-error" label="Amount" message={problem ?? refused} announce={!problem && refused !== undefined} />
        </div>
        <button type="submit" className="button" disabled={confirming !== null}>
          Top up
        </button>
      </form>
      {confirming ? (
        <fieldset className="notice">
          <legend className="visually-hidden">Confirm the top-up</legend>
          <p>
            Add {show(confirming.amount)} to {account.name}&apos;s wallet? Balance will be {show(account.walletBalance + confirming.amount)}.
          </p>
          <div className="row-buttons">
            <button
              type="button"
              className="button"
              disabled={topUp.isPending}
              onClick={() => topUp.mutate({ accountId: account.id, amount: confirming.amount, requestId: confirming.requestId })}
            >
              {topUp.isPending ? "Adding…" : `Add ${show(confirming.amount)}`}
            </button>
            <button type="button" className="link-button" disabled={topUp.isPending} onClick={() => setConfirming(null)}>
              Cancel
            </button>
          </div>
        </fieldset>
      ) : null}
      {done ? (
        <p role="status" className="ok" data-testid="top-up-done">
          Added {show(done.amount)} to {account.name}&apos;s wallet. The balance is now {show(done.balance)}.
        </p>
      ) : null}
      <Problem about="The wallet was not topped up" message={topUp.error && refused === undefined ? topUp.error.message : null} />
    </>
  );
}

/** The wallet's top-ups and daily charges over the range in the address (`from`, `to`), as a table with its downloads. */
export function WalletLedger({ accountId, currency }: { accountId: string; currency: string }) {
  const trpc = useTRPC();
  const [range, setRange] = useUrlRange();
  const ledger = useQuery(trpc.accounts.walletLedger.queryOptions({ accountId, ...range }));
  return (
    <section aria-label="Wallet ledger">
      <h3>Wallet ledger</h3>
      <div className="toolbar">
        <RangePicker range={range} onChange={setRange} />
      </div>
      <p className="muted">
        Top-ups as they were made, and each day&apos;s charges as settling took them from the wallet (the day&apos;s spend on every campaign), in the
        account&apos;s time zone{ledger.data ? ` (${ledger.data.timeZone})` : ""}: its days run from local midnight.
      </p>
      <QueryTable
        query={ledger}
        what="wallet ledger"
        rowsOf={(data) => data.rows}
        empty={`No top-ups or charges from ${range.startDate} to ${range.endDate}.`}
        caption={`Wallet ledger from ${range.startDate} to ${range.endDate}`}
        columns={ledgerColumns(ledger.data?.timeZone ?? "UTC")}
        rowKey={(r) => r.id}
        currency={currency}
        defaultSort={{ id: "when", descending: true }}
        fileName={`wallet-${range.startDate}-${range.endDate}`}
        sheet="Wallet ledger"
        urlPrefix="ledger_"
      />
      {ledger.data?.moreTopUps ? <p className="muted">Only the latest 500 top-ups of the range are listed: choose a shorter range for the others.</p> : null}
    </section>
  );
}
