// The only pieces of Tally's SQL written into a statement's text rather than passed as parameters:
// where Postgres takes no parameter (SET, FETCH, DDL such as CREATE/DROP TABLE and CREATE
// DATABASE). Each is checked here before it becomes raw() text, so no input ever reaches a
// statement's text unchecked.
import { raw, type Sql } from "sql-template-tag";

/** A non-negative integer (a statement timeout, a FETCH count). */
export function integerLiteral(n: number): Sql {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a non-negative integer: ${n}`);
  return raw(String(n));
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A table, partition or column name of Tally's own: lower-case letters, digits and underscores, as Postgres keeps them unquoted. */
export function identifier(name: string): Sql {
  if (!NAME.test(name)) throw new Error(`not a name of Tally's: ${JSON.stringify(name)}`);
  return raw(name);
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The start of a UTC day (YYYY-MM-DD) as a timestamptz literal, for a partition's bounds (DDL takes no parameter). */
export function dayStartLiteral(day: string): Sql {
  if (!DAY.test(day)) throw new Error(`not a day: ${JSON.stringify(day)}`);
  return raw(`'${day} 00:00:00+00'`);
}

const SETTING = /^[a-z_]+ = (?:[0-9.]+|'[A-Za-z0-9.]+')$/;

/** A `name = value` of SET LOCAL (`work_mem = '32MB'`): a setting name and a number or a plain quoted word. */
export function settingLiteral(setting: string): Sql {
  if (!SETTING.test(setting)) throw new Error(`not a setting Tally makes: ${JSON.stringify(setting)}`);
  return raw(setting);
}

const BIGINT = /^(?:0|[1-9]\d{0,18})$/;

/** Ids (bigint, as text) as a bigint[] literal, for a statement that takes no parameters (COPY). */
export function bigintArrayLiteral(ids: readonly string[]): Sql {
  for (const id of ids) if (!BIGINT.test(id)) throw new Error(`not a bigint: ${JSON.stringify(id)}`);
  return raw(`'{${ids.join(",")}}'::bigint[]`);
}

/** A time as a timestamptz literal (ISO 8601, UTC), for a statement that takes no parameters (COPY). */
export function timestampLiteral(at: Date): Sql {
  if (Number.isNaN(at.getTime())) throw new Error("not a time");
  return raw(`'${at.toISOString()}'::timestamptz`);
}
