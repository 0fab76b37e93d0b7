// Hand-written SQL: the ad query runs on every page view of every publisher, so eligibility is
// one round trip that the database answers from indexes, not a chain of ORM calls. Each
// advertiser's today is its own local date, so the day's spend is a probe per candidate by
// (campaign, day) and (advertiser, day), correlated scalar subqueries rather than joins a planner
// could hash over the whole spend tables. A campaign's negative terms are probed the same way, by
// the few keys of the query's term (core/negative-term-keys.ts), never read whole.
import sql, { empty, type Sql } from "sql-template-tag";
import type { BlockingKeys } from "@/server/core/negative-term-keys";
import { pgPool } from "@/server/db/pg-pool";

export interface CandidateProduct {
  sku: string;
  product_id: string | null;
  name: string;
  category: string | null;
  image_url: string | null;
}

export interface CandidateAd {
  ad_id: string;
  ad_type: "product" | "banner" | "video";
  size: string | null;
  media_url: string | null;
  destination_url: string | null;
  campaign_id: string;
  advertiser_id: string;
  bid_model: "cpm" | "cpc";
  bid_micros: bigint;
  /** The ad's own products, or its campaign's when the ad names none. */
  products: CandidateProduct[];
}

const PRODUCT_JSON = sql`json_build_object('sku', p.sku, 'product_id', p.product_id, 'name', p.name, 'category', p.category, 'image_url', p.image_url)`;

/**
 * Ads that may be served at `now` on these publishers (a publisher and its network): ad and
 * campaign active, inside the campaign's dates, wallet above zero, neither the campaign's nor the
 * advertiser's daily budget spent, and of one of the requested types. "Today" is each
 * advertiser's own local date (accounts.time_zone), the day settling counts spend toward
 * (pipeline/settle/spend.ts), so a capped campaign serves again from its advertiser's midnight.
 * A campaign with a negative term under one of `blocking`'s keys is left out (null: the query
 * has no term a negative can block).
 */
export async function findCandidateAds(publisherIds: string[], now: Date, adTypes: readonly string[], blocking: BlockingKeys | null): Promise<CandidateAd[]> {
  const { rows } = await pgPool().query<CandidateAd>(candidateAdsStatement(publisherIds, now, adTypes, blocking));
  return rows;
}

/** findCandidateAds's statement, for its plan to be read (EXPLAIN) where it is measured. */
export function candidateAdsStatement(publisherIds: string[], now: Date, adTypes: readonly string[], blocking: BlockingKeys | null): Sql {
  // Every key in the index's condition, beside the campaign: a campaign's terms are probed, never
  // read. Written as an OR of (match, key) pairs, the planner kept only the campaign in the
  // index's condition and filtered its 1,000 rows per candidate, more than doubling the ad
  // query's p99 (bench:negative-terms).
  const notBlocked = blocking
    ? sql`AND NOT EXISTS (SELECT 1 FROM campaign_negative_terms n
                           WHERE n.campaign_id = c.id AND n.match_key = ANY(${blocking.keys}::text[])
                             AND (n.match = 'phrase' OR n.match_key = ${blocking.exact}))`
    : empty;
  return sql`SELECT a.id AS ad_id, a.type::text AS ad_type, a.size, a.media_url, a.destination_url,
            c.id AS campaign_id, c.advertiser_id, c.bid_model::text AS bid_model, c.bid_micros,
            coalesce(
              (SELECT json_agg(${PRODUCT_JSON} ORDER BY p.sku) FROM ad_products ap JOIN products p ON p.id = ap.product_ref WHERE ap.ad_id = a.id),
              (SELECT json_agg(${PRODUCT_JSON} ORDER BY p.sku) FROM campaign_products cp JOIN products p ON p.id = cp.product_ref WHERE cp.campaign_id = c.id),
              '[]') AS products
       FROM ads a
       JOIN campaigns c ON c.id = a.campaign_id
       JOIN accounts adv ON adv.id = c.advertiser_id
       CROSS JOIN LATERAL (SELECT (${now}::timestamptz AT TIME ZONE adv.time_zone)::date AS day) AS today
      WHERE a.status = 'active' AND c.status = 'active'
        AND c.start_date <= today.day AND (c.end_date IS NULL OR c.end_date >= today.day)
        AND adv.wallet_balance_micros > 0
        AND (c.daily_budget_micros IS NULL
             OR coalesce((SELECT cs.spend_micros FROM campaign_daily_spend cs WHERE cs.campaign_id = c.id AND cs.day = today.day), 0) < c.daily_budget_micros)
        AND (adv.daily_budget_micros IS NULL
             OR coalesce((SELECT s.spend_micros FROM advertiser_daily_spend s WHERE s.advertiser_id = adv.id AND s.day = today.day), 0) < adv.daily_budget_micros)
        AND a.type::text = ANY(${adTypes}::text[])
        AND EXISTS (SELECT 1 FROM campaign_publishers cp WHERE cp.campaign_id = c.id AND cp.publisher_id = ANY(${publisherIds}::text[]))
        ${notBlocked}`;
}
