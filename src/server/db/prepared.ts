// A statement written with `sql` (sql-template-tag) as a named, prepared statement: Postgres
// parses and plans it once per connection. The hot paths (accepting, settling, the limits) name
// theirs; the name must always go with the same text.
import type pg from "pg";
import type { Sql } from "sql-template-tag";

export function prepared(name: string, query: Sql): pg.QueryConfig {
  return { name, text: query.text, values: query.values };
}
