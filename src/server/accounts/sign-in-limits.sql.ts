// Hand-written SQL: the sign-in back-off of an e-mail and address pair (sign_in_backoff), read and
// written by sign-in-limits.ts.
import sql, { type Sql } from "sql-template-tag";
import type { PairState } from "./sign-in-backoff";

const PAIR_COLUMNS = sql`now() AS now, b.failures, b.blocked_until AS "blockedUntil", b.succeeded_at AS "succeededAt", b.expires_at AS "expiresAt"`;
export type PairRow = { now: Date; failures: number | null; blockedUntil: Date | null; succeededAt: Date | null; expiresAt: Date | null };

/** The pair as it stands at the database's `now()`: locked when asked (once its row exists), else a row of nulls when it has none. */
export const readPairRow = (key: string, forUpdate: boolean): Sql =>
  forUpdate
    ? sql`SELECT ${PAIR_COLUMNS} FROM sign_in_backoff b WHERE b.key = ${key} FOR UPDATE`
    : sql`SELECT ${PAIR_COLUMNS} FROM (SELECT 1) AS one LEFT JOIN sign_in_backoff b ON b.key = ${key}`;

export const insertPairRow = (key: string): Sql => sql`INSERT INTO sign_in_backoff (key, expires_at) VALUES (${key}, now()) ON CONFLICT (key) DO NOTHING`;

export const updatePairRow = (key: string, next: PairState): Sql =>
  sql`UPDATE sign_in_backoff SET failures = ${next.failures}, blocked_until = ${next.blockedUntil}, succeeded_at = ${next.succeededAt}, expires_at = ${next.expiresAt}
       WHERE key = ${key}`;

export const DELETE_EXPIRED_PAIRS = sql`DELETE FROM sign_in_backoff WHERE expires_at < now()`;

/** The owner got in from this address: it starts afresh, and is known to the e-mail for `knownMs`. */
export const pairSucceeded = (key: string, knownMs: number): Sql =>
  sql`UPDATE sign_in_backoff SET failures = 0, blocked_until = NULL, succeeded_at = now(), expires_at = now() + ${knownMs} * interval '1 millisecond'
       WHERE key = ${key}`;
