// Hand-written SQL: the look-ups behind a report caller's scope (report-scope.ts).
import sql, { type Sql } from "sql-template-tag";

/** A publisher's own id with its sub-publishers' when it is a network, and the network it belongs to. */
export const publisherIdsOf = (accountId: string): Sql =>
  sql`SELECT array_append(coalesce((SELECT array_agg(s.id ORDER BY s.id) FROM accounts s WHERE s.network_id = a.id AND a.kind = 'network'), '{}'), a.id) AS publisher_ids,
            a.network_id
       FROM accounts a WHERE a.id = ${accountId}`;

export const accountKindOf = (accountId: string): Sql => sql`SELECT kind::text AS kind FROM accounts WHERE id = ${accountId}`;

/** The IANA zone an account reads its reports in (accounts.time_zone, UTC until changed). */
export const accountTimeZoneOf = (accountId: string): Sql => sql`SELECT time_zone FROM accounts WHERE id = ${accountId}`;
