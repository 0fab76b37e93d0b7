// Hand-written SQL: a list's pacing in one round trip, read where budget capping reads it
// (campaign_daily_spend, advertiser_daily_spend, wallets: Postgres's whatever the store), with
// each advertiser's days of spend beside its campaigns instead of a query per row. The rows are
// keyed by the advertiser's local dates; which of them is "today" depends on the advertiser's
// zone, so the statement reads every date today may be anywhere and pacing.ts picks.
import sql from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";

export interface PacingRow {
  campaign_id: string;
  advertiser_id: string;
  status: string;
  bid_model: "cpm" | "cpc";
  bid_micros: bigint;
  daily_budget_micros: bigint | null;
  has_active_ads: boolean;
  currency: string;
  /** The advertiser's IANA time zone (accounts.time_zone): its days are local dates there. */
  time_zone: string;
  wallet_balance_micros: bigint;
  advertiser_daily_budget_micros: bigint | null;
  /** The campaign's spend by local date, in micro-units as strings; dates without spend left out. */
  campaign_spent: Record<string, string>;
  /** The advertiser's spend by local date, the same way. */
  advertiser_spent: Record<string, string>;
}

/**
 * The campaigns of `campaignIds` whose advertiser is one of `advertiserIds` (null: any), with
 * their spend on each of `todays` (every date today may be, whatever the zone) and their
 * advertiser's from `firstDay` to the last of `todays`.
 */
export async function readPacing(q: { campaignIds: readonly string[]; advertiserIds: readonly string[] | null; todays: readonly string[]; firstDay: string }) {
  const { rows } = await pgPool().query<PacingRow>(
    sql`WITH picked AS (
          SELECT c.id, c.advertiser_id, c.status::text AS status, c.bid_model::text AS bid_model, c.bid_micros, c.daily_budget_micros
            FROM campaigns c
           WHERE c.id = ANY(${q.campaignIds}::text[])
             AND (${q.advertiserIds === null}::boolean OR c.advertiser_id = ANY(${q.advertiserIds ?? []}::text[]))
        ), advertisers AS (
          SELECT adv.id, adv.currency, adv.time_zone, adv.wallet_balance_micros, adv.daily_budget_micros,
                 coalesce((SELECT json_object_agg(s.day::text, s.spend_micros::text) FROM advertiser_daily_spend s
                            WHERE s.advertiser_id = adv.id AND s.day >= ${q.firstDay}::date AND s.day <= (SELECT max(d) FROM unnest(${q.todays}::date[]) AS d)), '{}') AS spent
            FROM accounts adv
           WHERE adv.id IN (SELECT advertiser_id FROM picked)
        )
        SELECT p.id AS campaign_id, p.advertiser_id, p.status, p.bid_model, p.bid_micros, p.daily_budget_micros,
               EXISTS (SELECT 1 FROM ads a WHERE a.campaign_id = p.id AND a.status = 'active') AS has_active_ads,
               adv.currency, adv.time_zone, adv.wallet_balance_micros, adv.daily_budget_micros AS advertiser_daily_budget_micros,
               coalesce((SELECT json_object_agg(cs.day::text, cs.spend_micros::text) FROM campaign_daily_spend cs
                          WHERE cs.campaign_id = p.id AND cs.day = ANY(${q.todays}::date[])), '{}') AS campaign_spent,
               adv.spent AS advertiser_spent
          FROM picked p
          JOIN advertisers adv ON adv.id = p.advertiser_id
         ORDER BY p.id`,
  );
  return rows;
}
