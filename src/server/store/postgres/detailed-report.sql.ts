// Hand-written SQL: the detailed reports for advertisers, one row per campaign (or ad) and day,
// and, for campaigns bought through a network, one more row per sub-publisher and day right
// after it. Both levels are read from the same coarse table in one statement, so a sub-publisher
// row and its total row can never disagree. The statement's parts: detailed-report-parts.sql.ts.

import sql, { raw } from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";
import { metricsOf, type TotalsRow } from "@/server/store/metrics";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import type { AdsDetailedRow, CampaignsDetailedRow, DetailedReportOrderBy } from "@/server/store/report-rows";
import {
  type DetailedGrain,
  type DetailedPlan,
  dayWindowCtes,
  type GivenDetailedRows,
  givenCte,
  groupOrder,
  listedCte,
  measuredCte,
  networksCte,
  objectsCte,
  pageCte,
  rowsTotal,
} from "./detailed-report-parts.sql";
import { type ReportStatement, reportStatement } from "./report-runner";
import { FIGURES, METRIC_SORTS } from "./rollup-totals.sql";

export type { DetailedGrain, GivenDetailedRows, MeasuredFigures } from "./detailed-report-parts.sql";

const SORTABLE: Record<DetailedReportOrderBy, string> = { day: "day", ...METRIC_SORTS, name: "name" };

type Row = TotalsRow & {
  day_text: string;
  key: string;
  publisher_id: string;
  campaign_id: string;
  name: string;
  object_type: string;
  campaign: string | null;
  advertiser_id: string;
  network_id: string | null;
  publisher: string | null;
  total: number;
};

function planOf(grain: DetailedGrain, scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>, given?: GivenDetailedRows): DetailedPlan {
  const whole = query.download;
  return {
    grain,
    key: raw(grain === "campaign" ? "campaign_id" : "ad_id"),
    table: raw(grain === "campaign" ? "daily_campaign_totals" : "daily_ad_totals"),
    sort: raw(SORTABLE[query.orderBy]),
    direction: raw(query.order === "asc" ? "ASC" : "DESC"),
    whole,
    byDay: query.orderBy === "day" && !whole,
    countedRows: grain === "ad" && query.ids.ad_id === undefined,
    range: { startDate: query.startDate, endDate: query.endDate, zone: query.zone },
    advertiserId: scope.advertiserId,
    ids: { advertiserId: query.ids.advertiser_id ?? null, campaignId: query.ids.campaign_id ?? null, adId: grain === "ad" ? (query.ids.ad_id ?? null) : null },
    ...(given ? { given } : {}),
  };
}

// Plain literals with one trailing spread: V8 builds several spreads into one literal on a
// slow path, which cost seconds of a large download (bench/results.md).
const detailedRow =
  (grain: DetailedGrain) =>
  (r: Row): CampaignsDetailedRow | AdsDetailedRow => {
    const level = r.publisher_id === "" ? grain : ("sub_publisher" as const);
    const publisherId = r.publisher_id === "" ? null : r.publisher_id;
    return grain === "campaign"
      ? {
          day: r.day_text,
          level,
          campaign_id: r.campaign_id,
          name: r.name,
          campaign_type: r.object_type,
          advertiser_id: r.advertiser_id,
          network_id: r.network_id,
          publisher_id: publisherId,
          publisher: r.publisher,
          ...metricsOf(r),
        }
      : {
          day: r.day_text,
          level,
          ad_id: r.key,
          name: r.name,
          ad_type: r.object_type,
          campaign_id: r.campaign_id,
          campaign: r.campaign ?? "",
          advertiser_id: r.advertiser_id,
          network_id: r.network_id,
          publisher_id: publisherId,
          publisher: r.publisher,
          ...metricsOf(r),
        };
  };

const PAGE_FIGURES = raw(FIGURES.map((figure) => `page.${figure}`).join(", "));

/**
 * The detailed report at the campaign or ad grain, for an advertiser's scope. Groups sort by
 * their total row, and sub-publisher rows follow it. The last SELECT returns only what a report
 * row needs, dates as text and no sort keys: parsing those cost a download more than writing them.
 * `given`: the measured rows summed elsewhere (the ClickHouse store's) instead of the report tables.
 */
export function detailedReportStatement(
  grain: DetailedGrain,
  scope: ReportScope,
  query: ReportQuery<DetailedReportOrderBy>,
  given?: GivenDetailedRows,
): ReportStatement<CampaignsDetailedRow | AdsDetailedRow> {
  const plan = planOf(grain, scope, query, given);
  const statement = sql`
    WITH ${networksCte()}, ${givenCte(plan)}${dayWindowCtes(plan)}${measuredCte(plan)}, ${objectsCte(plan)}, ${listedCte(plan)}, ${pageCte(plan)}
    SELECT page.key, page.publisher_id, ${PAGE_FIGURES}, page.day::text AS day_text, x.campaign_id, x.name, x.object_type, x.campaign, x.advertiser_id,
           CASE WHEN page.publisher_id = '' THEN page.network_ids ELSE coalesce(p.network_id, CASE WHEN p.kind = 'network' THEN p.id END) END AS network_id,
           p.name AS publisher, ${rowsTotal(plan)}::int AS total
      FROM page
      JOIN objects x ON x.key = page.key
      LEFT JOIN accounts p ON p.id = page.publisher_id
     ORDER BY ${groupOrder(plan, "page", "page.group_sort")}`;
  return reportStatement(statement, detailedRow(grain));
}

export const campaignsDetailedStatement = (scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>, given?: GivenDetailedRows) =>
  detailedReportStatement("campaign", scope, query, given) as ReportStatement<CampaignsDetailedRow>;
export const adsDetailedStatement = (scope: ReportScope, query: ReportQuery<DetailedReportOrderBy>, given?: GivenDetailedRows) =>
  detailedReportStatement("ad", scope, query, given) as ReportStatement<AdsDetailedRow>;

/**
 * The campaigns of a detailed report's scope and filters bought through a network: those whose
 * rows break down by sub-publisher. For a store that sums the rows elsewhere and fetches only those.
 */
export async function networkBoughtCampaigns(scope: ReportScope, ids: ReportQuery<DetailedReportOrderBy>["ids"]): Promise<string[]> {
  const { advertiserId } = scope;
  const advertiserFilter = ids.advertiser_id ?? null;
  const campaignFilter = ids.campaign_id ?? null;
  const { rows } = await pgPool().query<{ campaign_id: string }>(sql`
    WITH ${networksCte()}
    SELECT n.campaign_id FROM networks n JOIN campaigns c ON c.id = n.campaign_id
     WHERE (${advertiserId}::text IS NULL OR c.advertiser_id = ${advertiserId}) AND (${advertiserFilter}::text IS NULL OR c.advertiser_id = ${advertiserFilter})
       AND (${campaignFilter}::text IS NULL OR c.id = ${campaignFilter})`);
  return rows.map((row) => row.campaign_id);
}
