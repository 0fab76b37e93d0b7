// Hand-written SQL: the accept path of every beacon. One multi-row insert per group commit appends
// the batch to beacon_log and nothing else: no locks, no look-ups, no rollups, so the route's speed
// and its failures no longer depend on the heaviest work in the system. A 202 follows the commit;
// what the event is worth is decided later by a settle worker (src/server/pipeline/settle/).
import { boolArray, int2Array, textArray, timestamptzArray, uuidArray } from "@/server/db/binary-arrays";
import { pgPool } from "@/server/db/pg-pool";
import type { BeaconClaims } from "./beacon-token";

export interface BeaconToAppend {
  eventId: string;
  /** shardOf(ad, session): the settle shard that decides this event (src/server/core/shards.ts). */
  shard: number;
  claims: BeaconClaims;
  sessionId: string;
  userId: string | null;
  /** Null when the request had none, or an empty one. */
  userAgent: string | null;
  isBot: boolean;
  /** The posted session_id is the one the token was served to (claims.sessionHash). */
  sessionMatches: boolean;
  /** Keyed hash of the client's address (client-address.ts), null when unknown. */
  clientHash: string | null;
  /**
   * When the beacon happened, if the caller fixes it (tests, imports). Otherwise the time its
   * batch's insert runs, which is also its receipt time.
   */
  pinnedAt: Date | null;
}

// The statement is named: Postgres plans it once per connection.
const APPEND_SQL = `
INSERT INTO beacon_log (shard, event_id, event_at, kind, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
                        request_id, ad_type, ad_size, placement_name, context, site, user_agent, is_bot, session_matches, client_hash)
SELECT shard, event_id, coalesce(event_at, now()), kind::"EventKind", session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
       request_id, ad_type::"AdType", ad_size, placement_name, context, site, user_agent, is_bot, session_matches, client_hash
  FROM unnest($1::smallint[], $2::uuid[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
              $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::boolean[],
              $19::boolean[], $20::text[])
       WITH ORDINALITY AS t(shard, event_id, event_at, kind, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
                            request_id, ad_type, ad_size, placement_name, context, site, user_agent, is_bot, session_matches, client_hash, n)
 ORDER BY n`;

/**
 * Appends a batch to the log in one statement; on any error nothing of the batch is stored. The
 * arrays go in Postgres's binary format (binary-arrays.ts): less work and garbage than text arrays.
 */
export async function appendBeaconBatch(batch: BeaconToAppend[]): Promise<void> {
  await pgPool().query({
    name: "beacons-append",
    text: APPEND_SQL,
    values: [
      int2Array(batch.map((b) => b.shard)),
      uuidArray(batch.map((b) => b.eventId)),
      timestamptzArray(batch.map((b) => b.pinnedAt)),
      textArray(batch.map((b) => b.claims.kind)),
      textArray(batch.map((b) => b.sessionId)),
      textArray(batch.map((b) => b.userId)),
      textArray(batch.map((b) => b.claims.adId)),
      textArray(batch.map((b) => b.claims.campaignId)),
      textArray(batch.map((b) => b.claims.advertiserId)),
      textArray(batch.map((b) => b.claims.publisherId)),
      textArray(batch.map((b) => b.claims.requestId)),
      textArray(batch.map((b) => b.claims.adType)),
      textArray(batch.map((b) => b.claims.adSize)),
      textArray(batch.map((b) => b.claims.placementName)),
      textArray(batch.map((b) => b.claims.context)),
      textArray(batch.map((b) => b.claims.site)),
      textArray(batch.map((b) => b.userAgent)),
      boolArray(batch.map((b) => b.isBot)),
      boolArray(batch.map((b) => b.sessionMatches)),
      textArray(batch.map((b) => b.clientHash)),
    ],
  });
}
