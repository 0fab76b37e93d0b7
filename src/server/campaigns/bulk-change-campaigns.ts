// One change (pause, resume, a daily budget) to many campaigns at once, as the campaign list's
// bulk actions send it. Each campaign goes through the single campaign's rules: its row locked and
// its advertiser checked as update-campaign.ts does (another account's campaign is "no such
// campaign" and never touched; an account's viewer is refused), and its change written to the
// activity log in its own transaction. One campaign refused leaves the others changed, so the
// answer says, campaign by campaign, what was done.
import type { Actor } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { fromMicros, toMicros } from "@/server/core/money";
import { db } from "@/server/db/client";
import type { CampaignStatus } from "@/server/db/generated/enums";
import { type BulkCampaignOutcome, type TBulkCampaignChange, type TBulkCampaignsInput, ZBulkCampaignsInput } from "./bulk-campaign-input";
import { type CampaignState, campaignState, recordCampaignChange } from "./campaign-activity";
import { assertMayBeActive } from "./campaign-references";
import type { Tx } from "./sku-ownership";
import { lockCampaign } from "./update-campaign";

// The screens offer Pause on an active campaign and Resume on a paused one; a draft starts, and
// an ended or archived campaign comes back, through its form, where its dates and products are
// checked again. A paused campaign keeps its SKUs, so resuming it claims none anew.
const STATUS_MOVES: Record<"pause" | "resume", { from: CampaignStatus; to: CampaignStatus; refusal: string }> = {
  pause: { from: "active", to: "paused", refusal: "only an active campaign can be paused" },
  resume: { from: "paused", to: "active", refusal: "only a paused campaign can be resumed; start a draft or an ended campaign from its page" },
};

/** The state after the change, or why it is not made (`unchanged`: already so; `refused`: not allowed). */
function nextState(before: CampaignState, change: TBulkCampaignChange): { after: CampaignState } | { skip: Omit<BulkCampaignOutcome, "id"> } {
  if (change.action === "daily_budget") {
    const dailyBudget = fromMicros(toMicros(change.dailyBudget));
    return before.dailyBudget === dailyBudget
      ? { skip: { outcome: "unchanged", reason: "already has this daily budget" } }
      : { after: { ...before, dailyBudget } };
  }
  const move = STATUS_MOVES[change.action];
  if (before.status === move.to) return { skip: { outcome: "unchanged", reason: `already ${move.to}` } };
  if (before.status !== move.from) return { skip: { outcome: "refused", reason: `${move.refusal} (this one is ${before.status})` } };
  return { after: { ...before, status: move.to } };
}

async function changeOne(tx: Tx, actor: Actor, id: string, change: TBulkCampaignChange): Promise<BulkCampaignOutcome> {
  const { advertiserId } = await lockCampaign(tx, actor, id);
  const before = await campaignState(tx, id);
  if (!before) throw new TallyError("not_found", "no such campaign");
  const next = nextState(before, change);
  if ("skip" in next) return { id, ...next.skip };
  const { after } = next;
  // A paused campaign whose ads are all archived cannot serve: resumed, it would be active with no ad.
  await assertMayBeActive(tx, actor, { id, was: before.status as CampaignStatus, status: after.status as CampaignStatus });
  await tx.campaign.update({
    where: { id },
    data: change.action === "daily_budget" ? { dailyBudgetMicros: toMicros(change.dailyBudget) } : { status: STATUS_MOVES[change.action].to },
  });
  await recordCampaignChange(tx, actor, { id, name: before.name, advertiserId }, before, after);
  return { id, outcome: "changed" };
}

/**
 * Applies `change` to each campaign named (once each, in the order given), each in its own
 * transaction, and says what became of each: a rule's refusal (TallyError) is that campaign's
 * answer; anything else (the database gone) stops the run and is thrown.
 */
export async function bulkChangeCampaigns({ actor, ...input }: TBulkCampaignsInput & { actor: Actor }) {
  const { ids, change } = ZBulkCampaignsInput.parse(input);
  const results: BulkCampaignOutcome[] = [];
  for (const id of new Set(ids)) {
    try {
      results.push(await db.$transaction((tx) => changeOne(tx, actor, id, change)));
    } catch (error) {
      if (!(error instanceof TallyError)) throw error;
      results.push({ id, outcome: "refused", reason: error.message });
    }
  }
  return { results, changed: results.filter((r) => r.outcome === "changed").length };
}
