// Hand-written SQL: a download's slots are transaction-level advisory locks, tried in one round
// trip (download-slots.ts says why slots are locks).
import sql, { type Sql } from "sql-template-tag";

/** Tries a free slot of the caller (of `perKey`) and one of its account (of `perAccount`); null where none is free. */
export const claimSlotsSql = (requester: { caller: string; account: string }, limits: { perKey: number; perAccount: number }): Sql => sql`SELECT
  (SELECT s FROM generate_series(0, ${limits.perKey}::int - 1) s
    WHERE pg_try_advisory_xact_lock(hashtextextended('tally-download-key:' || ${requester.caller}::text || ':' || s, 0)) LIMIT 1) AS key_slot,
  (SELECT s FROM generate_series(0, ${limits.perAccount}::int - 1) s
    WHERE pg_try_advisory_xact_lock(hashtextextended('tally-download-account:' || ${requester.account}::text || ':' || s, 0)) LIMIT 1) AS account_slot`;
