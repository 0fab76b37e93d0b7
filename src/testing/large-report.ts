// A report large enough that its XLSX download outgrows what the sockets between a server and a
// client that reads nothing can buffer (about 4 MB on loopback), so the download really waits on
// its client: an advertiser's campaign gets `ads` more ads and a row of daily_ad_totals for each
// ad and day (`/report/advertisers/ads-detailed`), written straight into the tables.
import type pg from "pg";
import { addDays } from "@/server/core/days";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "./fixtures";

export interface LargeReport {
  advertiserId: string;
  campaignId: string;
  startDate: string;
  endDate: string;
  rows: number;
}

/** The advertiser, its campaign and `ads` × `days` report rows ending on `endDate`. */
export async function seedLargeAdsReport(pool: pg.Pool, { ads, days, endDate }: { ads: number; days: number; endDate: string }): Promise<LargeReport> {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const { campaign } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
  const startDate = addDays(endDate, -(days - 1));
  await pool.query(
    `INSERT INTO ads (id, campaign_id, name, type, size, media_url, destination_url, status, created_at, updated_at)
     SELECT $1 || '_bulk_' || g, $1, 'Bulk ad number ' || g, 'banner', '300x250', '/demo/media/banner-300x250.svg', 'https://shop.example/landing', 'active', now(), now()
       FROM generate_series(1, $2::int) g`,
    [campaign.id, ads],
  );
  const { rowCount } = await pool.query(
    `INSERT INTO daily_ad_totals (day, advertiser_id, campaign_id, ad_id, publisher_id, impressions, views, clicks, spend_micros, conversions, sales_revenue_micros)
     SELECT d::date, $2, $1, a.id, '', 1000 + (hashtext(a.id || d::text) & 65535), 100 + (hashtext(d::text || a.id) & 1023), 7 + (hashtext(a.id) & 63),
            12345 * (1 + (hashtext(a.id || 'x') & 1023)), 1 + (hashtext(d::text) & 7), 9990000 * (1 + (hashtext(a.id || d::text || 'y') & 15))
       FROM ads a, generate_series($3::date, $4::date, interval '1 day') d
      WHERE a.campaign_id = $1 AND a.id LIKE $1 || '\\_bulk\\_%'`,
    [campaign.id, advertiser.id, startDate, endDate],
  );
  // Fresh rows without statistics get a plan for a handful of rows: quadratic at this size.
  await pool.query("ANALYZE");
  return { advertiserId: advertiser.id, campaignId: campaign.id, startDate, endDate, rows: rowCount ?? 0 };
}
