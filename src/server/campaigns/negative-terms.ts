// A campaign's negative terms: search terms (the ad query's `term`) it is not served for, exact
// or as a phrase (core/search-terms.ts, matchesNegativeTerm). The advertiser's admins and staff
// add and remove them, its viewers read them; each change is written to the activity log in its
// transaction. The ad query reads them by key on every request (candidate-ads.sql.ts), so a term
// added blocks the next query.
import { z } from "zod";
import { type Actor, assertMayAccess, seesEveryAccount } from "@/server/accounts/actor";
import { STAFF_ACTOR } from "@/server/accounts/list-activity";
import { actorOf, recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { negativeTermKey } from "@/server/core/negative-term-keys";
import { type NegativeMatch, normaliseNegativeTerm } from "@/server/core/search-terms";
import { db } from "@/server/db/client";
import type { Tx } from "./sku-ownership";
import { lockCampaign } from "./update-campaign";

/**
 * Most negative terms a campaign keeps: more than any advertiser curates by hand, few enough that
 * its page lists them all and a term's check on the page stays one index probe.
 */
export const NEGATIVE_TERMS_PER_CAMPAIGN = 1_000;

export const NEGATIVE_MATCHES = ["exact", "phrase"] as const satisfies readonly NegativeMatch[];

export const ZNegativeTermInput = z.object({
  campaignId: z.string().min(1).max(256),
  // As the ad query's `term`: longer than the 80 characters kept, so a term pasted whole is cut as a search term is.
  term: z.string().min(1).max(200),
  match: z.enum(NEGATIVE_MATCHES),
});
export type TNegativeTermInput = z.input<typeof ZNegativeTermInput>;

export interface NegativeTermRow {
  term: string;
  match: NegativeMatch;
  createdAt: Date;
  /** Who added it: a member reads a staff member's as STAFF_ACTOR, as in the activity log. */
  createdBy: string;
}

const noSuchCampaign = () => new TallyError("not_found", "no such campaign");

/** The campaign, locked, when the actor may change it (update-campaign.ts's rules), with its name for the log. */
async function changeableCampaign(tx: Tx, actor: Actor, campaignId: string) {
  const { advertiserId } = await lockCampaign(tx, actor, campaignId);
  const { name } = await tx.campaign.findUniqueOrThrow({ where: { id: campaignId }, select: { name: true } });
  return { id: campaignId, name, advertiserId };
}

const entryOf = (campaign: { id: string; name: string; advertiserId: string }) => ({
  subject: `campaign ${campaign.name} (${campaign.id})`,
  accountId: campaign.advertiserId,
  campaignId: campaign.id,
});

/** The campaign's negative terms, newest first, for whoever may see its advertiser; "no such campaign" otherwise. */
export async function listNegativeTerms({ actor, campaignId }: { actor: Actor; campaignId: string }): Promise<NegativeTermRow[]> {
  const campaign = await db.campaign.findUnique({ where: { id: campaignId }, select: { advertiserId: true } });
  if (!campaign) throw noSuchCampaign();
  assertMayAccess(actor, campaign.advertiserId, "campaign");
  const rows = await db.campaignNegativeTerm.findMany({
    where: { campaignId },
    select: { term: true, match: true, createdAt: true, createdBy: true, createdByStaff: true },
    orderBy: [{ createdAt: "desc" }, { term: "asc" }, { match: "asc" }],
  });
  const staffShown = seesEveryAccount(actor);
  return rows.map(({ createdByStaff, ...row }) => (createdByStaff && !staffShown ? { ...row, createdBy: STAFF_ACTOR } : row));
}

/**
 * Adds a negative term, normalised as search terms are; adding one the campaign already has
 * changes nothing and writes no entry (`added` false). Refused past NEGATIVE_TERMS_PER_CAMPAIGN.
 */
export async function addNegativeTerm({
  actor,
  ...input
}: TNegativeTermInput & { actor: Actor }): Promise<{ term: string; match: NegativeMatch; added: boolean }> {
  const { campaignId, match, ...raw } = ZNegativeTermInput.parse(input);
  const term = normaliseNegativeTerm(raw.term);
  const matchKey = negativeTermKey({ term, match });
  return db.$transaction(async (tx) => {
    // The campaign's lock makes two additions take turns, so the count below holds.
    const campaign = await changeableCampaign(tx, actor, campaignId);
    const existing = await tx.campaignNegativeTerm.findUnique({ where: { campaignId_term_match: { campaignId, term, match } }, select: { term: true } });
    if (existing) return { term, match, added: false };
    const count = await tx.campaignNegativeTerm.count({ where: { campaignId } });
    if (count >= NEGATIVE_TERMS_PER_CAMPAIGN) {
      throw new TallyError(
        "bad_request",
        `campaign ${campaignId} already has ${NEGATIVE_TERMS_PER_CAMPAIGN.toLocaleString("en")} negative terms, the most a campaign keeps: remove one first`,
      );
    }
    const { actorName, actorStaff } = actorOf(actor);
    await tx.campaignNegativeTerm.create({ data: { campaignId, term, match, matchKey, createdBy: actorName, createdByStaff: actorStaff } });
    await recordActivity(tx, actor, { action: "campaign.negative_term.added", ...entryOf(campaign), before: null, after: { term, match } });
    return { term, match, added: true };
  });
}

/** Removes a negative term (as typed or as kept: it is normalised first); "no such negative term" when the campaign has none such. */
export async function removeNegativeTerm({ actor, ...input }: TNegativeTermInput & { actor: Actor }): Promise<{ term: string; match: NegativeMatch }> {
  const { campaignId, match, ...raw } = ZNegativeTermInput.parse(input);
  const term = normaliseNegativeTerm(raw.term);
  return db.$transaction(async (tx) => {
    const campaign = await changeableCampaign(tx, actor, campaignId);
    const { count } = await tx.campaignNegativeTerm.deleteMany({ where: { campaignId, term, match } });
    if (count === 0) throw new TallyError("not_found", `campaign ${campaignId} has no ${match} negative term "${term}"`);
    await recordActivity(tx, actor, { action: "campaign.negative_term.removed", ...entryOf(campaign), before: { term, match }, after: null });
    return { term, match };
  });
}
