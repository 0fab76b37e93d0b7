// Hand-written SQL: the search term and page category kept with every ad served, as Postgres keeps
// them in ad_events and attributions (prisma/migrations/20261211000100_search_terms_with_events):
// the ad query's `term` and `category` normalised (src/server/core/search-terms.ts), carried by the
// beacon token to each event and on to the order lines its events win. The shipper and the backfill
// send them with the rows (postgres-rows.sql.ts). Both are Nullable: null where the query had none.
// The term is a plain String, as many distinct terms as shoppers type; the category, drawn from a
// publisher's few pages, is LowCardinality as placement_name and context are. Placed after
// `context`, beside what else the token says of the page.
// No view, rollup or report reads them yet, so none is given its query again.
// History: none. Rows written before this migration read null (a Nullable column's default),
// which is what Postgres's rows of before its migration hold too. Hence no insert and no `alone`
// step.
import type { Schema } from "../schema";

const COLUMNS = ["search_term Nullable(String) AFTER context", "category LowCardinality(Nullable(String)) AFTER search_term"];

export function statements(s: Schema): string[] {
  return ["ad_events", "attributions"].flatMap((name) =>
    s.withColumns(name).flatMap((table) => COLUMNS.map((column) => `ALTER TABLE ${table}${s.onCluster} ADD COLUMN IF NOT EXISTS ${column}`)),
  );
}
