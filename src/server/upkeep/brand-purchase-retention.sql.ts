// Hand-written SQL: retention of brand_purchases, the look-back of new-to-brand. A row whose last
// purchase is older than the look-back can no longer make a line not new-to-brand, except for an
// order placed before it arrived (up to 30 days, the intake's limit), hence the 30 days more.
// Deleted in chunks, so one upkeep run never holds a long transaction however many shoppers there are.
import sql from "sql-template-tag";
import { DAY_MS } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";

const CHUNK = 10_000;
/** How long before its receipt an order may have been placed (docs/conversions.md). */
const LATE_ORDER_DAYS = 30;

/** Deletes the brand purchases past `lookBackDays` (and the late orders' margin); returns how many. */
export async function dropExpiredBrandPurchases(now: Date, lookBackDays: number): Promise<number> {
  const before = new Date(now.getTime() - (lookBackDays + LATE_ORDER_DAYS) * DAY_MS);
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pgPool().query(sql`
      DELETE FROM brand_purchases WHERE (publisher_id, shopper, advertiser_id) IN (
        SELECT publisher_id, shopper, advertiser_id FROM brand_purchases WHERE last_purchased_at < ${before} LIMIT ${CHUNK})`);
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < CHUNK) return deleted;
  }
}
