// Tests wait for settling where they used to wait for the 202: a beacon's status, spend and
// rollups exist once its shard is settled (src/server/pipeline/settle/).

import { randomUUID } from "node:crypto";
import { OPERATOR } from "@/server/accounts/actor";
import { type ApiKeyCaller, authenticateApiKey, createApiKey } from "@/server/accounts/api-keys";
import { DAY_MS } from "@/server/core/days";
import type { EventStatus } from "@/server/core/event-status";
import { pgPool } from "@/server/db/pg-pool";
import { type AcceptedBeacon, recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import { type RecordedConversion, recordConversion } from "@/server/pipeline/accept/conversions/record-conversion";
import { type SettleSummary, settlePending } from "@/server/pipeline/settle/settle-pending";
import { CHROME, type ServedTarget, servedClaims } from "./beacon-log";

/**
 * Settles until every beacon and order committed before the call is settled. A shard's log is read only up
 * to the oldest transaction still running anywhere in the cluster (another test file's database
 * included), so this waits for those to end, for at most `timeoutMs`.
 */
export async function settleAll(timeoutMs = 30_000): Promise<SettleSummary> {
  const pool = pgPool();
  const { rows } = await pool.query<{ target: string }>("SELECT pg_current_xact_id()::text AS target");
  const target = rows[0]!.target;
  const total: SettleSummary = { events: 0, counted: 0, orders: 0, setAside: 0, busyShards: 0, failedSteps: [] };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const done = await settlePending();
    total.events += done.events;
    total.counted += done.counted;
    total.orders += done.orders;
    total.setAside += done.setAside;
    total.busyShards += done.busyShards;
    total.failedSteps.push(...done.failedSteps);
    const { rows: waiting } = await pool.query<{ waiting: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM beacon_log l JOIN settle_cursors c USING (shard)
                       WHERE (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq) AND l.accepted_xid < $1::xid8)
           OR EXISTS (SELECT 1 FROM conversion_log l JOIN conversion_cursor c ON (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
                       WHERE l.accepted_xid < $1::xid8) AS waiting`,
      [target],
    );
    if (!waiting[0]!.waiting) return total;
    if (Date.now() > deadline) throw new Error(`beacons accepted before ${target} were still waiting after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface SettledOutcome extends AcceptedBeacon {
  status: EventStatus | "set_aside";
  spendMicros: bigint;
}

/** What one settled event became: its status and spend in ad_events, or set aside. */
export async function outcomeOf(eventId: string): Promise<SettledOutcome> {
  const { rows } = await pgPool().query<{ status: EventStatus; spend_micros: bigint }>(
    "SELECT status::text AS status, spend_micros FROM ad_events WHERE event_id = $1::uuid",
    [eventId],
  );
  const row = rows[0];
  if (row) return { eventId, status: row.status, spendMicros: row.spend_micros };
  const { rows: aside } = await pgPool().query("SELECT 1 FROM settle_set_aside WHERE event_id = $1::uuid", [eventId]);
  if (aside.length > 0) return { eventId, status: "set_aside", spendMicros: 0n };
  throw new Error(`event ${eventId} is not settled`);
}

/** recordBeacon, then settle: the beacon's status and spend, as the route used to answer them. */
export async function recordAndSettle(input: Parameters<typeof recordBeacon>[0]): Promise<SettledOutcome> {
  const { eventId } = await recordBeacon(input);
  await settleAll();
  return outcomeOf(eventId);
}

/** A click on `target`'s ad `daysAgo` days before now, in a session of its own, recorded and settled: its outcome. */
export function settledClickDaysAgo(target: ServedTarget, daysAgo: number): Promise<SettledOutcome> {
  const at = new Date(Date.now() - daysAgo * DAY_MS);
  const session = `click-${randomUUID()}`;
  return recordAndSettle({ claims: servedClaims(target, session, { kind: "click", at }), body: { session_id: session }, userAgent: CHROME, now: at });
}

const checkoutServers = new Map<string, Promise<ApiKeyCaller>>();

/** The publisher's checkout server as the conversion route knows it: by an API key of the publisher, made once. */
export function checkoutServerOf(publisherId: string): Promise<ApiKeyCaller> {
  let server = checkoutServers.get(publisherId);
  if (!server) {
    server = createApiKey({ actor: OPERATOR, accountId: publisherId, name: "checkout server" }).then(async ({ key }) => (await authenticateApiKey(key))!);
    checkoutServers.set(publisherId, server);
  }
  return server;
}

/**
 * recordConversion, then settle: the order is in conversions (or set aside) when this returns.
 * `proven`: sent by the publisher's checkout server with its API key, so it is credited whatever
 * the publisher's setting; otherwise it comes without proof, as from a browser.
 */
export async function recordAndSettleConversion(body: unknown, now?: Date, { proven = false }: { proven?: boolean } = {}): Promise<RecordedConversion> {
  const publisherId = (body as { publisher_id?: unknown }).publisher_id;
  const key = proven && typeof publisherId === "string" ? await checkoutServerOf(publisherId) : null;
  const recorded = await recordConversion(body, now, { key });
  await settleAll();
  return recorded;
}
