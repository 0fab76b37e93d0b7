// One settle step for one shard of the beacon log (the step itself: stretch.ts).

import type pg from "pg";
import { storedBeaconBytes } from "@/server/pipeline/accept/beacons/beacon-bytes";
import { store } from "@/server/store";
import type { LoggedBeacon, SettledBeacon, StoredHistory } from "@/server/store/settle-types";
import { recordIntake } from "./publisher-intake.sql";
import { moveShardCursor, readShardStretch, takeShardCursor } from "./settle-shard.sql";
import { chargeSpend } from "./spend";
import { type LogPosition, settleNextStretch } from "./stretch";
import { recordSetAside } from "./stretch.sql";
import { decideStatuses, screenBeacon, trafficLimits } from "./traffic-rules";
import { WORKER_NAME } from "./worker-name";

export interface ShardStep {
  /** False when another worker holds the shard: it was left alone. */
  taken: boolean;
  settled: SettledBeacon[];
  /** Events that could not be settled, set aside with their reason (settle_set_aside). */
  setAside: number;
  /** Whether more of the shard's log may be waiting. */
  more: boolean;
}

interface LogRow extends LogPosition {
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
  search_term: string | null;
  category: string | null;
  user_agent: string | null;
  is_bot: boolean;
  session_matches: boolean;
  client_hash: string | null;
}

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
      searchTerm: row.search_term,
      category: row.category,
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
 * Decides a stretch by the invalid-traffic rules (traffic-rules.ts) and has the store write it,
 * inside the settle transaction `tx`: the store is asked what it holds only about the beacons the
 * rules cannot decide alone, in one look-up; the counted events are priced (spend.ts), then the store
 * writes statuses, spend and rollups.
 */
async function settleBeacons(tx: pg.PoolClient, batch: LoggedBeacon[]): Promise<SettledBeacon[]> {
  const limits = trafficLimits();
  const asked = batch.flatMap((beacon, index) => (screenBeacon(beacon) === null ? [index] : []));
  const answers = await store().settled.beaconHistory(
    tx,
    asked.map((index) => batch[index]!),
    limits,
  );
  const stored: (StoredHistory | undefined)[] = [];
  asked.forEach((index, k) => {
    stored[index] = answers[k];
  });
  const statuses = decideStatuses(batch, stored, limits);
  return store().settled.storeBeacons(tx, batch, statuses, await chargeSpend(tx, batch, statuses));
}

/** Settles up to `limit` events of one shard's log, if no other worker holds the shard. */
export async function settleShardStep(shard: number, limit: number): Promise<ShardStep> {
  const { taken, done, setAside, more } = await settleNextStretch({
    takeCursor: async (client) => (await client.query<{ last_xid: string; last_seq: string }>(takeShardCursor(shard))).rows[0],
    // Rows only: a beacon's fields are bounded when it is accepted (ids of 256 characters, a user
    // agent of 512, the token's claims), so a stretch of rows is bounded in bytes too.
    readStretch: async (client, cursor) => {
      const { rows } = await client.query<LogRow>(readShardStretch(shard, cursor, limit));
      return { rows, full: rows.length === limit };
    },
    toItem: loggedBeacon,
    settle: async (client, batch) => {
      const settled = await settleBeacons(client, batch);
      await recordIntake(
        client,
        batch.map((beacon) => ({ publisherId: beacon.claims.publisherId, at: beacon.createdAt, beacons: 1, bytes: storedBeaconBytes(beacon) })),
        shard,
      );
      return settled;
    },
    setAside: (client, row, error) => recordSetAside(client, { eventId: row.event_id, kind: "beacon", shard, receivedAt: row.received_at }, error),
    moveCursor: async (client, last, count) => {
      await client.query(moveShardCursor(shard, last, count, WORKER_NAME));
    },
  });
  return { taken, settled: done, setAside, more };
}
