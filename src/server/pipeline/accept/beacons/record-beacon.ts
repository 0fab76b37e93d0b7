import { v7 as uuidv7 } from "uuid";
import { env } from "@/env";
import { TallyError } from "@/server/core/errors";
import { shardOf } from "@/server/core/shards";
import { retryOnceOnConflict } from "@/server/db/retry";
import { withinIntakeCeiling } from "../intake-ceiling";
import { appendBeaconBatch, type BeaconToAppend } from "./append-beacons.sql";
import { beaconAllowances } from "./beacon-allowances";
import { parseBeaconBody } from "./beacon-body.schema";
import { storedBeaconBytes } from "./beacon-bytes";
import { type BeaconClaims, sessionHashOf } from "./beacon-token";
import { isBotAgent } from "./bot-agents";
import { GroupCommit, refusalOf } from "./group-commit";

// One append in flight per process: beacons that arrive while it commits wait and go together in
// the next, so under load each transaction carries more of them, and Postgres's cost per beacon
// falls with the batch. One in flight took more beacons a second than two or four, measured side
// by side with the same requests (bench/results.md; docs/decisions/0002-group-commits.md). At low load a
// batch is one beacon, sent at once. A slow commit only makes the next batch bigger: at 5 ms a
// commit, 1,000 beacons a batch are still 200,000 a second.
// At most 20,000 beacons wait for a transaction (about 20 full batches, a few MB): past that the
// database is not keeping up, and waiting longer only holds memory and the client.
export const BEACON_QUEUE_LIMIT = 20_000;

const holder = globalThis as unknown as { tallyBeaconWriter?: GroupCommit<BeaconToAppend, null> };

export function beaconWriter(): GroupCommit<BeaconToAppend, null> {
  holder.tallyBeaconWriter ??= new GroupCommit(
    async (batch: BeaconToAppend[]) => {
      await retryOnceOnConflict(() => appendBeaconBatch(batch));
      return batch.map(() => null);
    },
    { maxBatch: 1000, maxInFlight: 1, maxQueuedWeight: BEACON_QUEUE_LIMIT },
  );
  return holder.tallyBeaconWriter;
}

/** Beacons waiting in this process for their append (for /api/metrics). */
export const beaconWriterDepth = (): number => holder.tallyBeaconWriter?.depth ?? 0;

/**
 * 429 past the hourly allowance of the beacon's token (its request, ad and kind) or of its session
 * in this process (beacon-allowances.ts); the session is counted only for a beacon its token allows.
 */
function withinAllowances(claims: BeaconClaims, sessionId: string, now: number): void {
  const { tokens, sessions } = beaconAllowances();
  const config = env();
  const token = tokens.take(`${claims.kind}\u0000${claims.adId}\u0000${claims.requestId}`, config.TALLY_BEACONS_PER_TOKEN_PER_HOUR, now);
  if (!token.ok) {
    throw new TallyError("too_many_requests", "this beacon address was sent too often in the last hour; it is no longer stored", {
      retryAfterSeconds: token.retryAfterSeconds,
    });
  }
  const session = sessions.take(sessionId, config.TALLY_BEACONS_PER_SESSION_PER_HOUR, now);
  if (!session.ok) {
    throw new TallyError("too_many_requests", "this session sent too many beacons in the last hour", { retryAfterSeconds: session.retryAfterSeconds });
  }
}

/** Longest user agent kept; a longer one is cut (it still identifies bots by its start). */
const USER_AGENT_LIMIT = 512;

interface RecordBeaconInput {
  /** From a verified beacon token (verifyBeaconToken). */
  claims: BeaconClaims;
  body: unknown;
  userAgent: string | null;
  /**
   * A keyed hash of the client's address, stored with the event for the click-velocity rule;
   * null when the address is unknown. The transport computes it (it alone knows the address).
   */
  clientHash?: string | null;
  /** Fixes the event's time (tests); by default it is its receipt. */
  now?: Date;
}

export interface AcceptedBeacon {
  eventId: string;
}

/**
 * Validates a beacon's body (422), holds it against its publisher's daily ceiling (429 past it:
 * intake-ceiling.ts), then appends the event to the log. Resolves only once the
 * event is committed there; 503 when it could not be, or when the write queue is full; 422 when
 * the database refuses this event's own data (the rest of its batch is stored all the same).
 * Whether it counts (counted, duplicate, bot or another invalid-traffic reason) and what it costs
 * is decided when its shard is settled (src/server/pipeline/settle/).
 */
export async function recordBeacon({ claims, body, userAgent, clientHash = null, now }: RecordBeaconInput): Promise<AcceptedBeacon> {
  const { session_id: sessionId, user_id: userId } = parseBeaconBody(body);
  withinAllowances(claims, sessionId, now?.getTime() ?? Date.now());
  const agent = userAgent?.trim() ? userAgent.slice(0, USER_AGENT_LIMIT) : null;
  // Time-ordered (UUIDv7): ids written at the same time sit together in every index on them.
  const beacon: BeaconToAppend = {
    eventId: uuidv7(),
    shard: shardOf(claims.adId, sessionId),
    claims,
    sessionId,
    userId: userId ?? null,
    userAgent: agent,
    isBot: agent !== null && isBotAgent(agent),
    sessionMatches: sessionHashOf(sessionId) === claims.sessionHash,
    clientHash,
    pinnedAt: now ?? null,
  };
  const admission = withinIntakeCeiling("beacons", claims.publisherId, storedBeaconBytes(beacon));
  if (admission) await admission;
  try {
    await beaconWriter().submit(beacon);
    return { eventId: beacon.eventId };
  } catch (error) {
    throw refusalOf(error, "event");
  }
}
