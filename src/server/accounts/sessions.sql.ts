// Hand-written SQL of the sign-in sessions (sessions.ts).
import sql, { type Sql } from "sql-template-tag";

/** One statement, served by the indexes on each column (a bitmap OR once the table is large). */
export const endedSessionsDelete = (expiredBy: Date, idleSince: Date): Sql =>
  sql`DELETE FROM "user_sessions" WHERE "expires_at" <= ${expiredBy} OR "last_seen_at" <= ${idleSince}`;
