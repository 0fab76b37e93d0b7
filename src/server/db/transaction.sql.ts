// Hand-written SQL: transaction control for the code that runs its own transactions on a pooled
// connection (transaction.ts, the settle steps, cursors). Statements without parameters go over
// the simple protocol, so one text may hold several (BEGIN and its SET LOCALs, one round trip).
import sql, { join, type Sql } from "sql-template-tag";
import { integerLiteral, settingLiteral } from "./sql-literals";

export const BEGIN = sql`BEGIN`;
export const COMMIT = sql`COMMIT`;
export const ROLLBACK = sql`ROLLBACK`;

/** BEGIN READ ONLY and a SET LOCAL per setting (`work_mem = '32MB'`), in one round trip. */
export function beginReadOnly(settings: readonly string[]): Sql {
  if (settings.length === 0) return sql`BEGIN READ ONLY`;
  return sql`BEGIN READ ONLY; ${join(
    settings.map((setting) => sql`SET LOCAL ${settingLiteral(setting)}`),
    "; ",
  )}`;
}

/** SET takes no parameter: the timeout is written in, as a checked integer (0: none). */
export function setLocalStatementTimeout(ms: number): Sql {
  return sql`SET LOCAL statement_timeout = ${integerLiteral(ms)}`;
}

export const SET_LOCAL_LOCK_TIMEOUT_2S = sql`SET LOCAL lock_timeout = '2s'`;
