// Hand-written SQL of changing attribution windows (attribution-windows.ts): the row a change
// replaces, locked until its transaction ends, so two changes at once take turns and each logs the
// values the other left. Prisma's tagged template: every value a parameter.
import type { Prisma } from "@/server/db/generated/client";

type Tx = Prisma.TransactionClient;

/** A campaign type's windows, locked FOR UPDATE (the migration made a row for every type). */
export async function lockTypeWindows(
  tx: Tx,
  campaignType: string,
): Promise<{ clickWindowSeconds: number; viewWindowSeconds: number; viewThrough: "views_and_impressions" | "views_only" }[]> {
  return tx.$queryRaw`SELECT click_window_seconds AS "clickWindowSeconds", view_window_seconds AS "viewWindowSeconds", view_through::text AS "viewThrough"
                        FROM attribution_windows WHERE campaign_type = ${campaignType}::"CampaignType" FOR UPDATE`;
}

/** A campaign's own windows and what the log names it by, locked FOR NO KEY UPDATE (beacons' spend rows refer to it). */
export async function lockCampaignWindows(
  tx: Tx,
  campaignId: string,
): Promise<{ name: string; advertiser_id: string; click_window_seconds: number | null; view_window_seconds: number | null }[]> {
  return tx.$queryRaw`SELECT name, advertiser_id, click_window_seconds, view_window_seconds
                        FROM campaigns WHERE id = ${campaignId} FOR NO KEY UPDATE`;
}
