// Hand-written SQL: the cursor a whole query result is read through (cursor.ts).
import sql, { type Sql } from "sql-template-tag";
import { integerLiteral } from "./sql-literals";

export function declareCursor(query: Sql): Sql {
  return sql`DECLARE all_rows NO SCROLL CURSOR FOR ${query}`;
}

/**
 * The same, for a caller that still hands over its statement as text with its own `$n`
 * placeholders (the report and export readers, until they write theirs with `sql`): the prefix
 * takes no parameter, so the text's numbering stands.
 */
export function declareCursorOfText(text: string, values: unknown[]): { text: string; values: unknown[] } {
  return { text: `${declareCursor(sql``).text}${text}`, values };
}

/** FETCH takes no parameter for its count: written in, as a checked integer. */
export function fetchRows(batch: number): Sql {
  return sql`FETCH ${integerLiteral(batch)} FROM all_rows`;
}
