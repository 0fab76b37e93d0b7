// Hand-written SQL: per-publisher totals over daily_rollups for a range and a scope, sorted and
// paged in the database.
import type { ReportQuery } from "./report-query";
import type { ReportScope } from "./report-scope";
import {
  METRIC_SORTS,
  type Metrics,
  metricsOf,
  pagedSelect,
  type ReportPage,
  type ReportStatement,
  reportPage,
  TOTALS_COLUMNS,
  type TotalsRow,
  totalsCtes,
} from "./rollup-totals.sql";

const SORTABLE = { ...METRIC_SORTS, publisher: "name" } as const;
export type PublisherReportOrderBy = keyof typeof SORTABLE;
export const PUBLISHER_REPORT_ORDER_BY = Object.keys(SORTABLE) as [PublisherReportOrderBy, ...PublisherReportOrderBy[]];

export interface PublisherReportRow extends Metrics {
  publisher: string;
  publisher_id: string;
  /** The network that resells this publisher's inventory, if any. */
  network_id: string | null;
  /** The publisher's sites, comma-separated. */
  sites: string;
}

/**
 * Publishers in scope with their totals over the range. An advertiser sees the publishers where
 * it had traffic in the range or that its campaigns target (directly or through their network),
 * with its own figures; a publisher sees itself, a network itself and its sub-publishers. With
 * `networkId`, only that network's sub-publishers are listed.
 */
export function publisherReportStatement(
  scope: ReportScope,
  query: ReportQuery<PublisherReportOrderBy>,
  networkId: string | null = null,
): ReportStatement<PublisherReportRow> {
  const sql = `
    WITH ${totalsCtes("publisher_id", { publisherScoped: scope.publisherIds !== null })}, listed AS (
      SELECT p.id, p.name, p.network_id,
             coalesce((SELECT string_agg(s.name, ',' ORDER BY s.name) FROM sites s WHERE s.publisher_id = p.id), '') AS sites,
             ${TOTALS_COLUMNS}
        FROM accounts p
        LEFT JOIN totals t ON t.key = p.id
        LEFT JOIN orders o ON o.key = p.id
       WHERE p.kind IN ('publisher', 'network')
         AND ($4::text[] IS NULL OR p.id = ANY($4))
         AND ($3::text IS NULL OR t.key IS NOT NULL
              OR EXISTS (SELECT 1 FROM campaigns c JOIN campaign_publishers cp ON cp.campaign_id = c.id
                          WHERE c.advertiser_id = $3 AND (cp.publisher_id = p.id OR cp.publisher_id = p.network_id)))
         AND ($5::text IS NULL OR p.network_id = $5)
         AND ($6::text IS NULL OR p.id = $6)
    )
    ${pagedSelect(SORTABLE[query.orderBy], query.order, 7)}`;
  const values = (limit: number | null, offset: number) => [
    query.startDate,
    query.endDate,
    scope.advertiserId,
    scope.publisherIds,
    networkId,
    query.ids.publisher_id ?? null,
    limit,
    offset,
  ];
  type Row = TotalsRow & { id: string; name: string; network_id: string | null; sites: string; total: number };
  return {
    sql,
    values,
    row: (r: Row) => ({ publisher: r.name, publisher_id: r.id, network_id: r.network_id, sites: r.sites, ...metricsOf(r) }),
  };
}

/** One page of publisherReportStatement's rows. */
export const publisherReport = (
  scope: ReportScope,
  query: ReportQuery<PublisherReportOrderBy>,
  networkId: string | null = null,
): Promise<ReportPage<PublisherReportRow>> => reportPage(publisherReportStatement(scope, query, networkId), query);
