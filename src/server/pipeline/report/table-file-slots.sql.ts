// Hand-written SQL: a table file's slots are transaction-level advisory locks, tried in one round
// trip (table-file-slots.ts says why slots are locks).
import sql, { type Sql } from "sql-template-tag";

/** Tries a free slot of the user (of `perUser`) and one of its account (of `perAccount`); null where none is free. */
export const claimTableFileSlotsSql = (who: { user: string; account: string }, limits: { perUser: number; perAccount: number }): Sql => sql`SELECT
  (SELECT s FROM generate_series(0, ${limits.perUser}::int - 1) s
    WHERE pg_try_advisory_xact_lock(hashtextextended('tally-table-file-user:' || ${who.user}::text || ':' || s, 0)) LIMIT 1) AS user_slot,
  (SELECT s FROM generate_series(0, ${limits.perAccount}::int - 1) s
    WHERE pg_try_advisory_xact_lock(hashtextextended('tally-table-file-account:' || ${who.account}::text || ':' || s, 0)) LIMIT 1) AS account_slot`;
