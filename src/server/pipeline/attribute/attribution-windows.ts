import { z } from "zod";
import { type Actor, assertAccountManager } from "@/server/accounts/actor";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { DEFAULT_WINDOW_SECONDS } from "@/server/store/conversion-rows";

const CAMPAIGN_TYPES = ["product", "display", "video"] as const;

export const ZSetAttributionWindowInput = z.object({
  campaignType: z.enum(CAMPAIGN_TYPES),
  // A day to 90 days: shorter windows lose real conversions, longer ones credit ads for
  // purchases they had no part in.
  days: z.number().int().min(1).max(90),
});
export type TSetAttributionWindowInput = z.input<typeof ZSetAttributionWindowInput>;

/** The window of every campaign type, in days; 14 (the interface's) where none is set. */
export async function attributionWindows(): Promise<Record<(typeof CAMPAIGN_TYPES)[number], number>> {
  const rows = await db.attributionWindow.findMany();
  const days = (type: string) => (rows.find((row) => row.campaignType === type)?.windowSeconds ?? DEFAULT_WINDOW_SECONDS) / 86_400;
  return { product: days("product"), display: days("display"), video: days("video") };
}

/**
 * Sets how long before an order a touch of a campaign of this type may be credited. Applies to
 * orders attributed from then on; orders already attributed keep their credit. For account
 * managers (and the operator): it changes how every advertiser's sales are credited.
 */
export async function setAttributionWindow({ actor, ...input }: TSetAttributionWindowInput & { actor: Actor }): Promise<void> {
  assertAccountManager(actor);
  const parsed = ZSetAttributionWindowInput.safeParse(input);
  if (!parsed.success) throw new TallyError("bad_request", parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "));
  const { campaignType, days } = parsed.data;
  await db.attributionWindow.upsert({
    where: { campaignType },
    create: { campaignType, windowSeconds: days * 86_400 },
    update: { windowSeconds: days * 86_400 },
  });
}
