// Hand-written SQL: the accept path of every beacon. One multi-row insert per group commit appends
// the batch to beacon_log and nothing else: no locks, no look-ups, no rollups, so the route's speed
// and its failures no longer depend on the heaviest work in the system. A 202 follows the commit;
// what the event is worth is decided later by a settle worker (src/server/pipeline/settle/).
import sql from "sql-template-tag";
import { boolArray, int2Array, textArray, timestamptzArray, uuidArray } from "@/server/db/binary-arrays";
import { pgPool } from "@/server/db/pg-pool";
import { prepared } from "@/server/db/prepared";
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

/**
 * Appends a batch to the log in one statement; on any error nothing of the batch is stored. The
 * arrays go in Postgres's binary format (binary-arrays.ts): less work and garbage than text arrays.
 */
export async function appendBeaconBatch(batch: BeaconToAppend[]): Promise<void> {
  const text = (of: (b: BeaconToAppend) => string | null) => textArray(batch.map(of));
  // The statement is named: Postgres plans it once per connection. Each column is one array parameter.
  await pgPool().query(
    prepared(
      "beacons-append",
      sql`
INSERT INTO beacon_log (shard, event_id, event_at, kind, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
                        request_id, ad_type, ad_size, placement_name, context, site, user_agent, is_bot, session_matches, client_hash,
                        search_term, category)
SELECT shard, event_id, coalesce(event_at, now()), kind::"EventKind", session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
       request_id, ad_type::"AdType", ad_size, placement_name, context, site, user_agent, is_bot, session_matches, client_hash,
       search_term, category
  FROM unnest(${int2Array(batch.map((b) => b.shard))}::smallint[], ${uuidArray(batch.map((b) => b.eventId))}::uuid[],
              ${timestamptzArray(batch.map((b) => b.pinnedAt))}::timestamptz[], ${text((b) => b.claims.kind)}::text[],
              ${text((b) => b.sessionId)}::text[], ${text((b) => b.userId)}::text[], ${text((b) => b.claims.adId)}::text[],
              ${text((b) => b.claims.campaignId)}::text[], ${text((b) => b.claims.advertiserId)}::text[],
              ${text((b) => b.claims.publisherId)}::text[], ${text((b) => b.claims.requestId)}::text[], ${text((b) => b.claims.adType)}::text[],
              ${text((b) => b.claims.adSize)}::text[], ${text((b) => b.claims.placementName)}::text[], ${text((b) => b.claims.context)}::text[],
              ${text((b) => b.claims.site)}::text[], ${text((b) => b.userAgent)}::text[], ${boolArray(batch.map((b) => b.isBot))}::boolean[],
              ${boolArray(batch.map((b) => b.sessionMatches))}::boolean[], ${text((b) => b.clientHash)}::text[],
              ${text((b) => b.claims.searchTerm)}::text[], ${text((b) => b.claims.category)}::text[])
       WITH ORDINALITY AS t(shard, event_id, event_at, kind, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
                            request_id, ad_type, ad_size, placement_name, context, site, user_agent, is_bot, session_matches, client_hash,
                            search_term, category, n)
 ORDER BY n`,
    ),
  );
}
