// Hand-written SQL: the currency a report file shows its money in (report-currency.ts).
import sql, { type Sql } from "sql-template-tag";

/** The one currency of the account `accountId`, or of every account when null; null when they hold several. */
export const currencyOfAccounts = (accountId: string | null): Sql =>
  sql`SELECT CASE WHEN count(DISTINCT currency) = 1 THEN min(currency) END AS currency
        FROM accounts
       WHERE ${accountId}::text IS NULL OR id = ${accountId}`;
