// Hand-written SQL: a list's pacing in one round trip, read where budget capping reads it
// (campaign_daily_spend, advertiser_daily_spend, wallets: Postgres's whatever the store), with
// each advertiser's last days summed beside its campaigns instead of a query per row.
import sql from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";

export interface PacingRow {
  campaign_id: string;
  advertiser_id: string;
  status: string;
  bid_model: "cpm" | "cpc";
  bid_micros: bigint;
  daily_budget_micros: bigint | null;
  spent_today_micros: bigint;
  has_active_ads: boolean;
  currency: string;
  wallet_balance_micros: bigint;
  advertiser_daily_budget_micros: bigint | null;
  advertiser_spent_today_micros: bigint;
  /** [day, spend in micro-units] for each day of the look-back, oldest first. */
  advertiser_last_days: [string, string][];
}

/**
 * The campaigns of `campaignIds` whose advertiser is one of `advertiserIds` (null: any), with
 * their spend on `today` and their advertiser's on each day from `firstDay` to `lastDay`.
 */
export async function readPacing(q: {
  campaignIds: readonly string[];
  advertiserIds: readonly string[] | null;
  today: string;
  firstDay: string;
  lastDay: string;
}) {
  const { rows } = await pgPool().query<PacingRow>(
    sql`WITH picked AS (
          SELECT c.id, c.advertiser_id, c.status::text AS status, c.bid_model::text AS bid_model, c.bid_micros, c.daily_budget_micros
            FROM campaigns c
           WHERE c.id = ANY(${q.campaignIds}::text[])
             AND (${q.advertiserIds === null}::boolean OR c.advertiser_id = ANY(${q.advertiserIds ?? []}::text[]))
        ), advertisers AS (
          SELECT adv.id, adv.currency, adv.wallet_balance_micros, adv.daily_budget_micros,
                 coalesce(today.spend_micros, 0) AS spent_today_micros,
                 (SELECT json_agg(json_build_array(d.day::date::text, coalesce(s.spend_micros, 0)::text) ORDER BY d.day)
                    FROM generate_series(${q.firstDay}::date, ${q.lastDay}::date, interval '1 day') AS d(day)
                    LEFT JOIN advertiser_daily_spend s ON s.advertiser_id = adv.id AND s.day = d.day::date) AS last_days
            FROM accounts adv
            LEFT JOIN advertiser_daily_spend today ON today.advertiser_id = adv.id AND today.day = ${q.today}::date
           WHERE adv.id IN (SELECT advertiser_id FROM picked)
        )
        SELECT p.id AS campaign_id, p.advertiser_id, p.status, p.bid_model, p.bid_micros, p.daily_budget_micros,
               coalesce(cs.spend_micros, 0) AS spent_today_micros,
               EXISTS (SELECT 1 FROM ads a WHERE a.campaign_id = p.id AND a.status = 'active') AS has_active_ads,
               adv.currency, adv.wallet_balance_micros, adv.daily_budget_micros AS advertiser_daily_budget_micros,
               adv.spent_today_micros AS advertiser_spent_today_micros, adv.last_days AS advertiser_last_days
          FROM picked p
          JOIN advertisers adv ON adv.id = p.advertiser_id
          LEFT JOIN campaign_daily_spend cs ON cs.campaign_id = p.id AND cs.day = ${q.today}::date
         ORDER BY p.id`,
  );
  return rows;
}
