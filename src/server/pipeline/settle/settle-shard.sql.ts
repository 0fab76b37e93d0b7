// Hand-written SQL of one settle step of a shard of the beacon log (settle-shard.ts): its cursor
// (settle_cursors), taken and moved in the step's transaction, and the stretch it reads.
import type pg from "pg";
import sql from "sql-template-tag";
import { prepared } from "@/server/db/prepared";
import type { CursorPosition, LogPosition } from "./stretch";

/** Locks the shard's cursor row; no row when another worker holds it. */
export const takeShardCursor = (shard: number): pg.QueryConfig =>
  prepared("settle-take-shard", sql`SELECT last_xid::text, last_seq::text FROM settle_cursors WHERE shard = ${shard} FOR UPDATE SKIP LOCKED`);

// The stretch after the cursor, only from transactions older than every one still running
// (pg_snapshot_xmin): those have all committed or aborted, so no row can later appear before the
// cursor, and a shard is read exactly once, in order, without gaps. The ORDER BY names the
// table's columns (l.): a bare name would sort by the output columns, which are text.
export const readShardStretch = (shard: number, cursor: CursorPosition, limit: number): pg.QueryConfig =>
  prepared(
    "settle-read-stretch",
    sql`
SELECT l.accepted_xid::text, l.seq::text, received_at, event_id::text, event_at, kind::text, session_id, user_id, ad_id, campaign_id,
       advertiser_id, publisher_id, request_id, ad_type::text, ad_size, placement_name, context, site, user_agent, is_bot,
       session_matches, client_hash, search_term, category
  FROM beacon_log l
 WHERE l.shard = ${shard} AND (l.accepted_xid, l.seq) > (${cursor.last_xid}::xid8, ${cursor.last_seq}::bigint) AND l.accepted_xid < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY l.accepted_xid, l.seq
 LIMIT ${limit}`,
  );

/** Moves the shard's cursor past `last`, counting the `count` events handled. */
export const moveShardCursor = (shard: number, last: LogPosition, count: number, worker: string): pg.QueryConfig =>
  prepared(
    "settle-move-cursor",
    sql`UPDATE settle_cursors SET last_xid = ${last.accepted_xid}::xid8, last_seq = ${last.seq}::bigint, settled_events = settled_events + ${count},
               settled_by = ${worker}, updated_at = now()
         WHERE shard = ${shard}`,
  );
