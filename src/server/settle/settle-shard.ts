// One settle step for one shard: take the shard (lock its cursor row, or leave it to the worker
// that holds it), read the next stretch of its log in commit-safe order, settle it and move the
// cursor, all in one transaction. A worker that dies mid-stretch (a crash, SIGKILL, a lost
// connection) leaves nothing behind: Postgres rolls its transaction back, the row lock goes with
// the connection, and the next worker settles the same stretch from the same cursor.
import { hostname } from "node:os";
import type pg from "pg";
import { pgPool } from "@/server/db/pg-pool";
import { isDataError } from "@/server/ingest/group-commit";
import { type LoggedBeacon, type SettledBeacon, settleBeacons } from "./settle-beacons.sql";

/** Which process moved a shard last (settle_cursors.settled_by), for operators and tests. */
const WORKER = `${hostname()}:${process.pid}`;

export interface ShardStep {
  /** False when another worker holds the shard: it was left alone. */
  taken: boolean;
  settled: SettledBeacon[];
  /** Events whose own data could not be settled, set aside with their reason (settle_set_aside). */
  setAside: number;
}

interface LogRow {
  accepted_xid: string;
  seq: string;
  received_at: Date;
  event_id: string;
  event_at: Date;
  kind: LoggedBeacon["claims"]["kind"];
  session_id: string;
  user_id: string | null;
  ad_id: string;
  campaign_id: string;
  advertiser_id: string;
  publisher_id: string;
  request_id: string;
  ad_type: LoggedBeacon["claims"]["adType"];
  ad_size: string | null;
  placement_name: string;
  context: string;
  site: string;
  user_agent: string | null;
  is_bot: boolean;
  session_matches: boolean;
  client_hash: string | null;
}

// The stretch after the cursor, only from transactions older than every one still running
// (pg_snapshot_xmin): those have all committed or aborted, so no row can later appear before the
// cursor, and a shard is read exactly once, in order, without gaps. The ORDER BY names the
// table's columns (l.): a bare name would sort by the output columns, which are text.
const READ_STRETCH_SQL = `
SELECT l.accepted_xid::text, l.seq::text, received_at, event_id::text, event_at, kind::text, session_id, user_id, ad_id, campaign_id,
       advertiser_id, publisher_id, request_id, ad_type::text, ad_size, placement_name, context, site, user_agent, is_bot,
       session_matches, client_hash
  FROM beacon_log l
 WHERE l.shard = $1 AND (l.accepted_xid, l.seq) > ($2::xid8, $3::bigint) AND l.accepted_xid < pg_snapshot_xmin(pg_current_snapshot())
 ORDER BY l.accepted_xid, l.seq
 LIMIT $4`;

function loggedBeacon(row: LogRow): LoggedBeacon {
  return {
    acceptedXid: row.accepted_xid,
    seq: row.seq,
    receivedAt: row.received_at,
    eventId: row.event_id,
    claims: {
      kind: row.kind,
      requestId: row.request_id,
      adId: row.ad_id,
      campaignId: row.campaign_id,
      advertiserId: row.advertiser_id,
      publisherId: row.publisher_id,
      site: row.site,
      placementName: row.placement_name,
      context: row.context,
      adType: row.ad_type,
      adSize: row.ad_size,
    },
    sessionId: row.session_id,
    userId: row.user_id,
    userAgent: row.user_agent,
    isBot: row.is_bot,
    sessionMatches: row.session_matches,
    clientHash: row.client_hash,
    createdAt: row.event_at,
  };
}

/**
 * Settles `stretch` inside a savepoint; when it fails on its own data (SQLSTATE class 22 or 23),
 * settles its halves in order instead, until the event that fails stands alone and is set aside.
 * The rest of the stretch is settled all the same, so one bad event never holds a shard.
 */
async function settleIsolating(client: pg.PoolClient, shard: number, stretch: LoggedBeacon[], step: ShardStep): Promise<void> {
  await client.query("SAVEPOINT stretch");
  try {
    step.settled.push(...(await settleBeacons(client, stretch)));
    await client.query("RELEASE SAVEPOINT stretch");
    return;
  } catch (error) {
    await client.query("ROLLBACK TO SAVEPOINT stretch");
    if (!isDataError(error)) throw error;
    if (stretch.length === 1) {
      const [event] = stretch as [LoggedBeacon];
      await client.query({
        name: "settle-set-aside",
        text: `INSERT INTO settle_set_aside (event_id, shard, received_at, reason, sqlstate) VALUES ($1, $2, $3, $4, $5)
               ON CONFLICT (event_id) DO NOTHING`,
        values: [event.eventId, shard, event.receivedAt, (error as Error).message, (error as { code?: string }).code ?? null],
      });
      step.setAside += 1;
      return;
    }
  }
  const half = Math.ceil(stretch.length / 2);
  await settleIsolating(client, shard, stretch.slice(0, half), step);
  await settleIsolating(client, shard, stretch.slice(half), step);
}

/** Settles up to `limit` events of one shard's log, if no other worker holds the shard. */
export async function settleShardStep(shard: number, limit: number): Promise<ShardStep> {
  const client = await pgPool().connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    const { rows: cursors } = await client.query<{ last_xid: string; last_seq: string }>({
      name: "settle-take-shard",
      text: "SELECT last_xid::text, last_seq::text FROM settle_cursors WHERE shard = $1 FOR UPDATE SKIP LOCKED",
      values: [shard],
    });
    const cursor = cursors[0];
    const step: ShardStep = { taken: cursor !== undefined, settled: [], setAside: 0 };
    if (!cursor) {
      await client.query("ROLLBACK");
      return step;
    }
    const { rows } = await client.query<LogRow>({
      name: "settle-read-stretch",
      text: READ_STRETCH_SQL,
      values: [shard, cursor.last_xid, cursor.last_seq, limit],
    });
    if (rows.length === 0) {
      await client.query("ROLLBACK");
      return step;
    }
    await settleIsolating(client, shard, rows.map(loggedBeacon), step);
    const last = rows[rows.length - 1]!;
    await client.query({
      name: "settle-move-cursor",
      text: `UPDATE settle_cursors SET last_xid = $2::xid8, last_seq = $3::bigint, settled_events = settled_events + $4, settled_by = $5, updated_at = now()
              WHERE shard = $1`,
      values: [shard, last.accepted_xid, last.seq, rows.length, WORKER],
    });
    await client.query("COMMIT");
    return step;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
