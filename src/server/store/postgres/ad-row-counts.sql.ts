// daily_ad_row_counts: how many daily_ad_totals rows each advertiser, day and campaign holds (over
// every publisher, and per publisher), so that the detailed ad report can place a page's days
// without counting keys. Both writers add to it in the statement that inserts the rows, and the
// consistency check recounts it from daily_ad_totals.
import sql, { type Sql } from "sql-template-tag";
import type { ReportTableSpec } from "./rollup-tables.sql";

/**
 * For a table whose rows are counted: the RETURNING clause of its upsert, which says which keys
 * the statement inserted (a row version the upsert inserted has no xmax; one it updated carries
 * the updating transaction's), and the CTE after it that adds those rows to daily_ad_row_counts.
 * Within the writer's WITH, the name daily_ad_totals is the upsert's RETURNING rows. The count
 * rows are locked after the table's rows, in key order, by both writers.
 */
export function rowCounting(spec: ReportTableSpec): { returning: string; countsCte: string } {
  if (!spec.rowsCounted) return { returning: "", countsCte: "" };
  return {
    returning: "RETURNING advertiser_id, zone, day, campaign_id, publisher_id, xmax = 0 AS inserted",
    countsCte: `, daily_ad_row_counts AS (
  INSERT INTO daily_ad_row_counts AS c (advertiser_id, zone, day, campaign_id, ad_rows, ad_publisher_rows)
  SELECT advertiser_id, zone, day, campaign_id, count(*) FILTER (WHERE publisher_id = ''), count(*) FILTER (WHERE publisher_id <> '')
    FROM ${spec.table}
   WHERE inserted
   GROUP BY 1, 2, 3, 4
   ORDER BY 1, 2, 3, 4
  ON CONFLICT (advertiser_id, zone, day, campaign_id) DO UPDATE
     SET ad_rows = c.ad_rows + EXCLUDED.ad_rows, ad_publisher_rows = c.ad_publisher_rows + EXCLUDED.ad_publisher_rows
)`,
  };
}

/**
 * The CTE `recounted`: daily_ad_row_counts as daily_ad_totals says it should be between two days
 * (inclusive), in the table's columns and order. daily_ad_totals' own figures are recounted from
 * the raw tables by the other checks.
 */
export const adRowCountsRecount = (firstDay: string, lastDay: string): Sql => sql`
recounted AS (
  SELECT advertiser_id, zone, day, campaign_id, count(*) FILTER (WHERE publisher_id = '') AS ad_rows,
         count(*) FILTER (WHERE publisher_id <> '') AS ad_publisher_rows
    FROM daily_ad_totals
   WHERE day BETWEEN ${firstDay}::date AND ${lastDay}::date
   GROUP BY 1, 2, 3, 4
)`;
