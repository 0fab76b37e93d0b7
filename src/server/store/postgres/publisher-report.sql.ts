// Hand-written SQL: per-publisher totals from the report tables (rollup-totals.sql.ts) for a
// range and a scope, sorted and paged in the database.

import sql from "sql-template-tag";
import { metricsOf, type TotalsRow } from "@/server/store/metrics";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import type { PublisherReportOrderBy, PublisherReportRow } from "@/server/store/report-rows";
import { type ReportStatement, reportStatement } from "./report-runner";
import { type KeyedFigures, METRIC_SORTS, pagedSelect, TOTALS_COLUMNS, totalsCtes } from "./rollup-totals.sql";

const SORTABLE: Record<PublisherReportOrderBy, string> = { ...METRIC_SORTS, publisher: "name" };

type Row = TotalsRow & { id: string; name: string; network_id: string | null; sites: string; total: number };

/**
 * Publishers in scope with their totals over the range. An advertiser sees the publishers where
 * it had traffic in the range or that its campaigns target (directly or through their network),
 * with its own figures; a publisher sees itself, a network itself and its sub-publishers. With
 * `networkId`, only that network's sub-publishers are listed. `given`: figures summed elsewhere
 * instead of the report tables (totalsCtes).
 */
export function publisherReportStatement(
  scope: ReportScope,
  query: ReportQuery<PublisherReportOrderBy>,
  networkId: string | null = null,
  given?: readonly KeyedFigures[],
): ReportStatement<PublisherReportRow> {
  const { advertiserId, publisherIds } = scope;
  const publisherFilter = query.ids.publisher_id ?? null;
  const listing = sql`
    WITH ${totalsCtes("publisher_id", { range: query, scope }, given)}, listed AS (
      SELECT p.id, p.name, p.network_id,
             coalesce((SELECT string_agg(s.name, ',' ORDER BY s.name) FROM sites s WHERE s.publisher_id = p.id), '') AS sites,
             ${TOTALS_COLUMNS}
        FROM accounts p
        LEFT JOIN totals t ON t.key = p.id
        LEFT JOIN orders o ON o.key = p.id
       WHERE p.kind IN ('publisher', 'network')
         AND (${publisherIds}::text[] IS NULL OR p.id = ANY(${publisherIds}))
         AND (${advertiserId}::text IS NULL OR t.key IS NOT NULL
              OR EXISTS (SELECT 1 FROM campaigns c JOIN campaign_publishers cp ON cp.campaign_id = c.id
                          WHERE c.advertiser_id = ${advertiserId} AND (cp.publisher_id = p.id OR cp.publisher_id = p.network_id)))
         AND (${networkId}::text IS NULL OR p.network_id = ${networkId})
         AND (${publisherFilter}::text IS NULL OR p.id = ${publisherFilter})
    )
    ${pagedSelect(SORTABLE[query.orderBy], query.order)}`;
  return reportStatement(listing, (r: Row) => ({ publisher: r.name, publisher_id: r.id, network_id: r.network_id, sites: r.sites, ...metricsOf(r) }));
}
