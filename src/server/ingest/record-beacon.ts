import { randomUUID } from "node:crypto";
import { isbot } from "isbot";
import { retryOnceOnConflict } from "@/server/db/retry";
import { clientAddressHash } from "@/server/http/client-address";
import { parseBeaconBody } from "./beacon-body.schema";
import { type BeaconClaims, sessionHashOf } from "./beacon-token";
import { GroupCommit, refusalOf } from "./group-commit";
import { type BeaconToStore, type StoredBeacon, storeBeaconBatch } from "./store-beacons.sql";

// Two transactions in flight: one is written while the next is prepared. More only queue on the
// advertiser row lock (collector under the ingest benchmark's load, 8 s runs, measured before the
// de-duplication query fix: 1 in flight 1,420 req/s, 2 → 1,490, 4 → 1,200).
// At most 20,000 beacons wait for a transaction (about 20 full batches, a few MB): past that the
// database is not keeping up, and waiting longer only holds memory and the client.
export const BEACON_QUEUE_LIMIT = 20_000;

const holder = globalThis as unknown as { tallyBeaconWriter?: GroupCommit<BeaconToStore, StoredBeacon> };

export function beaconWriter(): GroupCommit<BeaconToStore, StoredBeacon> {
  holder.tallyBeaconWriter ??= new GroupCommit((batch: BeaconToStore[]) => retryOnceOnConflict(() => storeBeaconBatch(batch)), {
    maxBatch: 1000,
    maxInFlight: 2,
    maxQueuedWeight: BEACON_QUEUE_LIMIT,
  });
  return holder.tallyBeaconWriter;
}

/** Longest user agent kept; a longer one is cut (it still identifies bots by its start). */
const USER_AGENT_LIMIT = 512;

interface RecordBeaconInput {
  /** From a verified beacon token (verifyBeaconToken). */
  claims: BeaconClaims;
  body: unknown;
  userAgent: string | null;
  /** The client's address (client-address.ts), for the click-velocity rule; null when unknown. */
  clientAddress?: string | null;
  /** Fixes the event's time (tests); by default it is the time its transaction begins. */
  now?: Date;
}

/**
 * Validates a beacon's body (422), then stores the event with its status (counted, duplicate,
 * bot or another invalid-traffic reason) and spend. Resolves only once the event is committed;
 * 503 when it could not be, or when the write queue is full; 422 when the database refuses this
 * event's own data (the rest of its batch is stored all the same).
 */
export async function recordBeacon({ claims, body, userAgent, clientAddress = null, now }: RecordBeaconInput): Promise<StoredBeacon> {
  const { session_id: sessionId, user_id: userId } = parseBeaconBody(body);
  const agent = userAgent?.trim() ? userAgent.slice(0, USER_AGENT_LIMIT) : null;
  try {
    return await beaconWriter().submit({
      eventId: randomUUID(),
      claims,
      sessionId,
      userId: userId ?? null,
      userAgent: agent,
      isBot: agent !== null && isbot(agent),
      sessionMatches: sessionHashOf(sessionId) === claims.sessionHash,
      clientHash: clientAddressHash(clientAddress),
      pinnedAt: now ?? null,
    });
  } catch (error) {
    throw refusalOf(error, "event");
  }
}
