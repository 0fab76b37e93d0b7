// Hand-written SQL: the time zone an account reads its figures in (account-hours.ts).
import sql, { type Sql } from "sql-template-tag";

export const timeZoneOfAccount = (accountId: string): Sql => sql`SELECT time_zone FROM accounts WHERE id = ${accountId}`;
