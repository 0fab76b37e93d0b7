// Hand-written SQL: the cursor a whole query result is read through (cursor.ts).
import sql, { type Sql } from "sql-template-tag";
import { integerLiteral } from "./sql-literals";

export function declareCursor(query: Sql): Sql {
  return sql`DECLARE all_rows NO SCROLL CURSOR FOR ${query}`;
}

/** FETCH takes no parameter for its count: written in, as a checked integer. */
export function fetchRows(batch: number): Sql {
  return sql`FETCH ${integerLiteral(batch)} FROM all_rows`;
}
