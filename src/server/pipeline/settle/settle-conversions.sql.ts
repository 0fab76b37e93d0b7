// Hand-written SQL of the settle step of accepted orders (settle-conversions.ts): the one cursor of
// conversion_log (conversion_cursor), taken and moved in the step's transaction, the stretch it
// reads, and the orders each session had stored before it.
import type pg from "pg";
import sql from "sql-template-tag";
import { prepared } from "@/server/db/prepared";
import type { CursorPosition, LogPosition } from "./stretch";

/** Locks the cursor row; no row when another worker holds it. */
export const TAKE_CONVERSION_CURSOR: pg.QueryConfig = prepared(
  "settle-take-conversions",
  sql`SELECT last_xid::text, last_seq::text FROM conversion_cursor WHERE id = 0 FOR UPDATE SKIP LOCKED`,
);

// See settle-shard.sql.ts: below the oldest running transaction, in (transaction id, sequence)
// order, the ORDER BY naming the table's columns. The positions and sizes come first, without the
// orders, so the stretch is cut at STRETCH_BYTES before any order is read.
export const readConversionSizes = (cursor: CursorPosition, limit: number): pg.QueryConfig =>
  prepared(
    "settle-read-conversion-sizes",
    sql`
SELECT l.accepted_xid::text, l.seq::text, l.bytes
  FROM conversion_log l
 WHERE (l.accepted_xid, l.seq) > (${cursor.last_xid}::xid8, ${cursor.last_seq}::bigint) AND l.accepted_xid < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY l.accepted_xid, l.seq
 LIMIT ${limit}`,
  );

/** The orders after the cursor up to `last`, inclusive. */
export const readConversions = (cursor: CursorPosition, last: LogPosition): pg.QueryConfig =>
  prepared(
    "settle-read-conversions",
    sql`
SELECT l.accepted_xid::text, l.seq::text, l.event_id::text, coalesce(l.pinned_received_at, l.received_at) AS received_at, l.bytes, l.conversion
  FROM conversion_log l
 WHERE (l.accepted_xid, l.seq) > (${cursor.last_xid}::xid8, ${cursor.last_seq}::bigint) AND (l.accepted_xid, l.seq) <= (${last.accepted_xid}::xid8, ${last.seq}::bigint)
 ORDER BY l.accepted_xid, l.seq`,
  );

// Orders each (publisher, session) of the stretch had stored in the 24 hours before its first
// order: the latest ones, no more than the allowance (conversions_publisher_id_session_id_received_at_idx).
export const sessionOrders = (sessions: { publisherId: string; sessionId: string; since: Date }[], allowance: number): pg.QueryConfig =>
  prepared(
    "settle-session-orders",
    sql`
SELECT p.publisher_id, p.session_id, o.received_at
  FROM unnest(${sessions.map((s) => s.publisherId)}::text[], ${sessions.map((s) => s.sessionId)}::text[], ${sessions.map((s) => s.since)}::timestamptz[])
       AS p(publisher_id, session_id, since)
 CROSS JOIN LATERAL (
   SELECT c.received_at FROM conversions c
    WHERE c.publisher_id = p.publisher_id AND c.session_id = p.session_id AND c.received_at > p.since
    ORDER BY c.received_at DESC
    LIMIT ${allowance}) AS o`,
  );

/** Moves the cursor past `last`, counting the `count` orders handled. */
export const moveConversionCursor = (last: LogPosition, count: number, worker: string): pg.QueryConfig =>
  prepared(
    "settle-move-conversion-cursor",
    sql`UPDATE conversion_cursor SET last_xid = ${last.accepted_xid}::xid8, last_seq = ${last.seq}::bigint, settled_orders = settled_orders + ${count},
               settled_by = ${worker}, updated_at = now()
         WHERE id = 0`,
  );
