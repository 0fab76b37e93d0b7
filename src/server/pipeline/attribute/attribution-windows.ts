// How far back an order looks for the touch it credits (docs/conversions.md, "Windows"): a click
// window and a view window per campaign type, which touches may earn view-through credit, and a
// campaign's own windows where an account manager set them. Changes apply to orders attributed
// from then on; each is written to the activity log with the values before and after.
import { z } from "zod";
import { type Actor, assertAccountManager, assertMayAccess } from "@/server/accounts/actor";
import { changedFields, recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { DEFAULT_WINDOW_SECONDS } from "@/server/store/conversion-rows";
import { lockCampaignWindows, lockTypeWindows } from "./attribution-windows.sql";

export const CAMPAIGN_TYPES = ["product", "display", "video"] as const;
export type CampaignTypeName = (typeof CAMPAIGN_TYPES)[number];
export const VIEW_THROUGH_TOUCHES = ["views_and_impressions", "views_only"] as const;
export type ViewThrough = (typeof VIEW_THROUGH_TOUCHES)[number];

const DAY_SECONDS = 86_400;
// A day to 90 days: shorter windows lose real conversions, longer ones credit ads for purchases
// they had no part in.
const ZWindowDays = z.number().int().min(1).max(90);

export const ZSetAttributionWindowsInput = z.object({
  campaignType: z.enum(CAMPAIGN_TYPES),
  clickDays: ZWindowDays,
  viewDays: ZWindowDays,
  viewThrough: z.enum(VIEW_THROUGH_TOUCHES),
});
export type TSetAttributionWindowsInput = z.input<typeof ZSetAttributionWindowsInput>;

export const ZSetCampaignWindowsInput = z.object({
  campaignId: z.string().min(1).max(256),
  /** null: the campaign type's window. */
  clickDays: ZWindowDays.nullable(),
  viewDays: ZWindowDays.nullable(),
});
export type TSetCampaignWindowsInput = z.input<typeof ZSetCampaignWindowsInput>;

export interface TypeWindows {
  clickDays: number;
  viewDays: number;
  viewThrough: ViewThrough;
}

/** The windows in force for one campaign, and where each comes from. */
export interface CampaignWindows {
  click: { days: number; from: "campaign" | "type" };
  view: { days: number; from: "campaign" | "type" };
  viewThrough: ViewThrough;
}

/** Days of a window stored in seconds (null: none of its own), and back. */
const toDays = <T extends number | null>(seconds: T) => (seconds === null ? null : seconds / DAY_SECONDS) as T;
const toSeconds = <T extends number | null>(days: T) => (days === null ? null : days * DAY_SECONDS) as T;

/** A type's windows as stored, in days; the interface's 14 days and both touch kinds for a type without a row. */
const typeWindows = (row: { clickWindowSeconds: number; viewWindowSeconds: number; viewThrough: ViewThrough } | undefined): TypeWindows =>
  row
    ? { clickDays: toDays(row.clickWindowSeconds), viewDays: toDays(row.viewWindowSeconds), viewThrough: row.viewThrough }
    : { clickDays: toDays(DEFAULT_WINDOW_SECONDS), viewDays: toDays(DEFAULT_WINDOW_SECONDS), viewThrough: "views_and_impressions" };

function badRequest(error: z.ZodError): TallyError {
  return new TallyError("bad_request", error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "));
}

/** The windows of every campaign type; the interface's 14 days and both touch kinds where none is set. */
export async function attributionWindows(): Promise<Record<CampaignTypeName, TypeWindows>> {
  const rows = await db.attributionWindow.findMany();
  const of = (type: CampaignTypeName) => typeWindows(rows.find((row) => row.campaignType === type));
  return { product: of("product"), display: of("display"), video: of("video") };
}

/**
 * Sets a campaign type's click and view windows and which touches earn view-through credit. For
 * account managers (and the operator): it changes how every advertiser's sales are credited.
 */
export async function setAttributionWindows({ actor, ...input }: TSetAttributionWindowsInput & { actor: Actor }): Promise<void> {
  assertAccountManager(actor);
  const parsed = ZSetAttributionWindowsInput.safeParse(input);
  if (!parsed.success) throw badRequest(parsed.error);
  const { campaignType, clickDays, viewDays, viewThrough } = parsed.data;
  const values = { clickWindowSeconds: toSeconds(clickDays), viewWindowSeconds: toSeconds(viewDays), viewThrough };
  await db.$transaction(async (tx) => {
    const before = typeWindows((await lockTypeWindows(tx, campaignType))[0]);
    // Saving the windows in force changes nothing, and writes no entry.
    if (changedFields(before, { clickDays, viewDays, viewThrough }) === null) return;
    await tx.attributionWindow.upsert({ where: { campaignType }, create: { campaignType, ...values }, update: values });
    // Every field, changed or not: the settings page shows each entry as the whole windows before and after.
    await recordActivity(tx, actor, {
      action: "attribution.windows.set",
      subject: `${campaignType} campaigns`,
      accountId: null,
      before: { ...before },
      after: { clickDays, viewDays, viewThrough },
    });
  });
}

const CAMPAIGN_WINDOWS = { advertiserId: true, type: true, clickWindowSeconds: true, viewWindowSeconds: true } as const;

/** The windows in force for a campaign (its own, else its type's), and where each comes from. */
async function windowsInForce(campaign: {
  type: CampaignTypeName;
  clickWindowSeconds: number | null;
  viewWindowSeconds: number | null;
}): Promise<CampaignWindows> {
  const type = (await attributionWindows())[campaign.type];
  const pick = (own: number | null, ofType: number) =>
    own === null ? { days: ofType, from: "type" as const } : { days: toDays(own), from: "campaign" as const };
  return { click: pick(campaign.clickWindowSeconds, type.clickDays), view: pick(campaign.viewWindowSeconds, type.viewDays), viewThrough: type.viewThrough };
}

/** The windows in force for `campaignId` (which the caller may see), or null when there is no such campaign. */
export async function windowsOfCampaign(campaignId: string): Promise<CampaignWindows | null> {
  const campaign = await db.campaign.findUnique({ where: { id: campaignId }, select: CAMPAIGN_WINDOWS });
  return campaign ? windowsInForce(campaign) : null;
}

/**
 * The windows in force for a campaign, for its advertiser's users and account managers; "no such
 * campaign" to anyone else, as for an id that does not exist.
 */
export async function campaignWindowsFor({ actor, campaignId }: { actor: Actor; campaignId: string }): Promise<CampaignWindows> {
  const campaign = await db.campaign.findUnique({ where: { id: campaignId }, select: CAMPAIGN_WINDOWS });
  if (!campaign) throw new TallyError("not_found", "no such campaign");
  assertMayAccess(actor, campaign.advertiserId, "campaign");
  return windowsInForce(campaign);
}

/**
 * Sets (a number of days) or clears (null: its type's) one campaign's own click and view windows.
 * For account managers: an advertiser could otherwise lengthen the windows its own sales are
 * credited by.
 */
export async function setCampaignWindows({ actor, ...input }: TSetCampaignWindowsInput & { actor: Actor }): Promise<CampaignWindows> {
  assertAccountManager(actor);
  const parsed = ZSetCampaignWindowsInput.safeParse(input);
  if (!parsed.success) throw badRequest(parsed.error);
  const { campaignId, clickDays, viewDays } = parsed.data;
  await db.$transaction(async (tx) => {
    const [campaign] = await lockCampaignWindows(tx, campaignId);
    if (!campaign) throw new TallyError("not_found", "no such campaign");
    const before = { clickDays: toDays(campaign.click_window_seconds), viewDays: toDays(campaign.view_window_seconds) };
    if (changedFields(before, { clickDays, viewDays }) === null) return;
    await tx.campaign.update({ where: { id: campaignId }, data: { clickWindowSeconds: toSeconds(clickDays), viewWindowSeconds: toSeconds(viewDays) } });
    await recordActivity(tx, actor, {
      action: "campaign.windows.set",
      subject: `campaign ${campaign.name} (${campaignId})`,
      accountId: campaign.advertiser_id,
      campaignId,
      before,
      after: { clickDays, viewDays },
    });
  });
  return (await windowsOfCampaign(campaignId))!;
}

/**
 * The longest window any order may look back now, in days: a type's or a campaign's, click or
 * view. Retention keeps counted events this long (upkeep/raw-retention.sql.ts).
 */
export async function longestWindowDays(): Promise<number> {
  const types = Object.values(await attributionWindows()).flatMap((w) => [w.clickDays, w.viewDays]);
  const overrides = await db.campaign.aggregate({ _max: { clickWindowSeconds: true, viewWindowSeconds: true } });
  const own = [overrides._max.clickWindowSeconds, overrides._max.viewWindowSeconds].flatMap((seconds) => (seconds === null ? [] : [toDays(seconds)]));
  return Math.max(...types, ...own);
}
