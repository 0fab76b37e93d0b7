"use client";
// The campaign list's bulk actions on the campaigns selected (and shown): pause, resume, or one
// daily budget for all of them. The server applies each under the single campaign's rules
// (src/server/campaigns/bulk-change-campaigns.ts) and says what became of each; the line under
// the buttons says it in words, and names any campaign left as it was and why.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Problem } from "@/app/problem";
import { type BulkCampaignOutcome, type TBulkCampaignChange, ZBulkCampaignsInput } from "@/server/campaigns/bulk-campaign-input";
import { useTRPC } from "../../trpc-client";
import { formatMoney } from "../figures";
import styles from "./pacing.module.css";

const campaigns = (n: number) => (n === 1 ? "1 campaign" : `${n} campaigns`);

/** "2 campaigns paused", then what was already so. */
function doneSentence(change: TBulkCampaignChange, results: BulkCampaignOutcome[], currency: string | null): string {
  const changed = results.filter((r) => r.outcome === "changed").length;
  const unchanged = results.filter((r) => r.outcome === "unchanged").length;
  const done =
    change.action === "daily_budget"
      ? `${campaigns(changed)} given a daily budget of ${formatMoney(change.dailyBudget, currency)}`
      : `${campaigns(changed)} ${change.action === "pause" ? "paused" : "resumed"}`;
  const already = change.action === "daily_budget" ? "already had it" : change.action === "pause" ? "already paused" : "already active";
  return unchanged > 0 ? `${done}; ${unchanged} ${already}.` : `${done}.`;
}

export function BulkActions({
  chosen,
  currency,
  onDone,
}: {
  /** The campaigns selected among those shown, with their names for the answer. */
  chosen: { id: string; name: string }[];
  currency: string | null;
  onDone: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [budget, setBudget] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [answer, setAnswer] = useState<{ said: string; refused: string | null } | null>(null);
  const bulk = useMutation(trpc.campaigns.bulkChange.mutationOptions());

  const send = (change: TBulkCampaignChange) => {
    setAnswer(null);
    setProblem(null);
    const input = ZBulkCampaignsInput.safeParse({ ids: chosen.map((c) => c.id), change });
    if (!input.success) {
      const first = input.error.issues[0];
      setProblem(first?.path.includes("dailyBudget") ? `Daily budget ${first.message}` : (first?.message ?? "the change is not valid"));
      return;
    }
    const names = new Map(chosen.map((c) => [c.id, c.name]));
    bulk.mutate(input.data, {
      onSuccess: ({ results }) => {
        const refused = results.filter((r) => r.outcome === "refused").map((r) => `${names.get(r.id) ?? r.id} (${r.reason})`);
        setAnswer({ said: doneSentence(change, results, currency), refused: refused.length > 0 ? refused.join("; ") : null });
        onDone();
        void queryClient.invalidateQueries({ queryKey: trpc.campaigns.pathKey() });
      },
    });
  };

  return (
    <div className="bulk-actions">
      {chosen.length > 0 ? (
        <form className="toolbar" aria-label="Change the selected campaigns" onSubmit={(e) => e.preventDefault()}>
          <span>{campaigns(chosen.length)} selected</span>
          <button type="button" disabled={bulk.isPending} onClick={() => send({ action: "pause" })}>
            Pause
          </button>
          <button type="button" disabled={bulk.isPending} onClick={() => send({ action: "resume" })}>
            Resume
          </button>
          <label>
            Daily budget for each
            <input type="number" min="0" step="0.01" inputMode="decimal" value={budget} onChange={(e) => setBudget(e.target.value)} />
          </label>
          <button
            type="button"
            disabled={bulk.isPending}
            onClick={() => send({ action: "daily_budget", dailyBudget: budget.trim() === "" ? Number.NaN : Number(budget) })}
          >
            Set daily budget
          </button>
        </form>
      ) : null}
      {/* Said where the buttons were, after the selection clears. */}
      <p role="status" className={`muted ${styles.result}`} data-testid="bulk-result">
        {answer?.said ?? ""}
      </p>
      <Problem about="Not changed" message={answer?.refused} testId="bulk-refused" />
      <Problem about="The campaigns could not be changed" message={problem ?? bulk.error?.message} />
    </div>
  );
}
