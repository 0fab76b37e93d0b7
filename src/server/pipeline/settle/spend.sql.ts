// Hand-written SQL: what pricing a stretch's counted events needs (spend.ts), read under the
// advertisers' row locks in id order, so wallets and daily budgets are read and lowered by one
// stretch at a time, whichever shard it comes from: every writer of those rows holds the lock too.
// Wallets, budgets and spend are Postgres's whatever the store.
import type pg from "pg";
import sql from "sql-template-tag";
import { prepared } from "@/server/db/prepared";

/** A campaign's bid and budgets, its advertiser's wallet and budget, and both spends so far. */
export interface BillingRow {
  id: string;
  advertiser_id: string;
  bid_model: "cpm" | "cpc";
  bid_micros: bigint;
  campaign_daily_budget: bigint | null;
  wallet_balance_micros: bigint;
  advertiser_daily_budget: bigint | null;
  /** The advertiser's IANA time zone: its daily budgets run from local midnight to local midnight. */
  advertiser_time_zone: string;
  /** Spend so far per local date (in the advertiser's zone) asked for, in micro-units as strings. */
  campaign_spent: Record<string, string>;
  advertiser_spent: Record<string, string>;
}

/**
 * The billing rows of `campaignIds` with their spend on `days` (dates: those a local date of the
 * stretch may be, whatever the zone), their advertisers locked until the transaction `client` ends.
 * The zone is read under the same lock, so a change of zone waits for the stretch, or the stretch
 * for it.
 */
export async function lockedBilling(client: pg.PoolClient, campaignIds: readonly string[], days: readonly string[]): Promise<BillingRow[]> {
  const { rows } = await client.query<BillingRow>(
    prepared(
      "beacons-billing",
      sql`SELECT c.id, c.advertiser_id, c.bid_model::text AS bid_model, c.bid_micros, c.daily_budget_micros AS campaign_daily_budget,
                  adv.wallet_balance_micros, adv.daily_budget_micros AS advertiser_daily_budget, adv.time_zone AS advertiser_time_zone,
                  coalesce((SELECT json_object_agg(cs.day::text, cs.spend_micros::text) FROM campaign_daily_spend cs
                             WHERE cs.campaign_id = c.id AND cs.day = ANY(${days}::date[])), '{}') AS campaign_spent,
                  coalesce((SELECT json_object_agg(s.day::text, s.spend_micros::text) FROM advertiser_daily_spend s
                             WHERE s.advertiser_id = adv.id AND s.day = ANY(${days}::date[])), '{}') AS advertiser_spent
             FROM campaigns c JOIN accounts adv ON adv.id = c.advertiser_id
            WHERE c.id = ANY(${campaignIds}::text[])
            ORDER BY adv.id
              FOR UPDATE OF adv`,
    ),
  );
  return rows;
}
