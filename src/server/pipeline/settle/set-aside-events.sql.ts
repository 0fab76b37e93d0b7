// Hand-written SQL: what settling set aside (settle_set_aside), read for operators and the
// dashboard (set-aside-events.ts).
import sql, { type Sql } from "sql-template-tag";

type Days = { startDate: string; endDate: string };

const receivedIn = ({ startDate, endDate }: Days) => sql`received_at >= ${startDate}::date AND received_at < ${endDate}::date + 1`;

export const setAsideCount = (range: Days): Sql => sql`SELECT count(*)::int AS n FROM settle_set_aside WHERE ${receivedIn(range)}`;

export const latestSetAside = (range: Days, limit: number): Sql =>
  sql`SELECT event_id::text, kind, received_at, reason, sqlstate, publisher_id, order_id, rule
        FROM settle_set_aside WHERE ${receivedIn(range)} ORDER BY set_aside_at DESC LIMIT ${limit}`;

// Orders set aside by a rule, of some publishers or of all (null).
const byRuleOf = (range: Days, publisherIds: string[] | null) =>
  sql`kind = 'conversion' AND rule IS NOT NULL AND ${receivedIn(range)}
      AND (${publisherIds}::text[] IS NULL OR publisher_id = ANY(${publisherIds}))`;

export const setAsideCountsByRule = (range: Days, publisherIds: string[] | null): Sql =>
  sql`SELECT rule, count(*)::int AS n FROM settle_set_aside WHERE ${byRuleOf(range, publisherIds)} GROUP BY rule ORDER BY rule`;

export const latestOrdersSetAsideByRule = (range: Days, publisherIds: string[] | null, limit: number): Sql =>
  sql`SELECT publisher_id, order_id, received_at, rule, reason FROM settle_set_aside WHERE ${byRuleOf(range, publisherIds)}
       ORDER BY received_at DESC, event_id LIMIT ${limit}`;
