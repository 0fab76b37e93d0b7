// The invalid-traffic rules of settling: what an accepted beacon becomes (event-status.ts). Each
// rule is a pure function named for what it drops, answering the status it stores the beacon as,
// or null when it lets the beacon through. decideStatuses runs them in this order, and the first
// that drops a beacon names its status:
//   1. dropBot: the user agent is a known bot's (bot-agents.ts, judged when the beacon was accepted);
//   2. dropMissingUserAgent: the request had no user agent;
//   3. dropSessionMismatch: the beacon came from another session than its token was served to;
//      (1 to 3 need nothing stored: screenBeacon; the store is asked about the others only)
//   4. dropDuplicate: a counted event of the same (ad, session, kind) inside the kind's
//      de-duplication window, or an impression's or view's token already counted;
//   5. dropTokenReuse: the token was already counted maxCountedPerToken times;
//   6. dropClickVelocity: a click from an address that already made the minute's allowance;
// anything else is counted. Rules 4 to 6 read what was stored before the beacon (StoredHistory)
// joined with the stretch's own counted events before it: a stretch of the log can span minutes
// (a backlog), and its events are decided in the log's order by the same rules.
import { env } from "@/env";
import type { EventStatus } from "@/server/core/event-status";
import { TOKEN_SPAN_SECONDS } from "@/server/pipeline/accept/beacons/beacon-token";
import type { EventKind, LoggedBeacon, StoredHistory, TrafficLimits } from "@/server/store/settle-types";

/** docs/interface-decisions.md §3: an impression or view counts at most once per (ad, session) a minute, a click once an hour. */
export const DEDUP_WINDOW_SECONDS: Record<EventKind, number> = { impression: 60, view: 60, click: 3600 };

/**
 * One token (one kind of one served ad) is counted at most this often in its whole life: an
 * impression or view address once anyway (once per token and session, and a token belongs to one
 * session), a click address at most three times however long it lives (7 days; once an hour by
 * the de-duplication window alone would allow 168).
 */
export const MAX_COUNTED_PER_TOKEN = 3;

/** The rules' windows and limits as configured (TALLY_CLICKS_PER_ADDRESS_PER_MINUTE). */
export function trafficLimits(): TrafficLimits {
  return {
    dedupWindowSeconds: DEDUP_WINDOW_SECONDS,
    tokenSpanSeconds: TOKEN_SPAN_SECONDS,
    maxCountedPerToken: MAX_COUNTED_PER_TOKEN,
    clicksPerAddressPerMinute: env().TALLY_CLICKS_PER_ADDRESS_PER_MINUTE,
  };
}

export function dropBot(beacon: LoggedBeacon): "bot" | null {
  return beacon.isBot ? "bot" : null;
}

export function dropMissingUserAgent(beacon: LoggedBeacon): "no_user_agent" | null {
  return beacon.userAgent === null ? "no_user_agent" : null;
}

export function dropSessionMismatch(beacon: LoggedBeacon): "session_mismatch" | null {
  return beacon.sessionMatches ? null : "session_mismatch";
}

/** A repeat: counted already for its (ad, session, kind) inside the window, or (an impression or view) its token counted at all. */
export function dropDuplicate(beacon: LoggedBeacon, history: StoredHistory): "duplicate" | null {
  const tokenSeen = beacon.claims.kind !== "click" && history.tokenCounted > 0;
  return history.countedWithinWindow || tokenSeen ? "duplicate" : null;
}

export function dropTokenReuse(history: StoredHistory, limits: TrafficLimits): "token_reuse" | null {
  return history.tokenCounted >= limits.maxCountedPerToken ? "token_reuse" : null;
}

/** A click from a client address that already made the minute's allowance of clicks; a click without an address is never one. */
export function dropClickVelocity(beacon: LoggedBeacon, history: StoredHistory, limits: TrafficLimits): "click_velocity" | null {
  const fromAddress = beacon.claims.kind === "click" && beacon.clientHash !== null;
  return fromAddress && history.recentClicks >= limits.clicksPerAddressPerMinute ? "click_velocity" : null;
}

/** Rules 1 to 3: the status of a beacon from what it carries alone, or null when what was stored must decide. */
export function screenBeacon(beacon: LoggedBeacon): EventStatus | null {
  return dropBot(beacon) ?? dropMissingUserAgent(beacon) ?? dropSessionMismatch(beacon);
}

/** Rules 4 to 6 against what was counted before the beacon (stored and earlier in the stretch). */
function decideAgainstHistory(beacon: LoggedBeacon, history: StoredHistory, limits: TrafficLimits): EventStatus {
  return dropDuplicate(beacon, history) ?? dropTokenReuse(history, limits) ?? dropClickVelocity(beacon, history, limits) ?? "counted";
}

/** The stretch's counted events so far, by (ad, session, kind): when each happened and its token. */
type CountedInStretch = Map<string, { at: number; requestId: string }[]>;

const pairKindOf = (beacon: LoggedBeacon) => `${beacon.claims.adId}\u0000${beacon.sessionId}\u0000${beacon.claims.kind}`;

/** What was stored before a beacon, with the stretch's counted events before it added. */
function withStretch(beacon: LoggedBeacon, stored: StoredHistory, counted: CountedInStretch, limits: TrafficLimits): StoredHistory {
  const earlier = counted.get(pairKindOf(beacon)) ?? [];
  const windowStart = beacon.createdAt.getTime() - limits.dedupWindowSeconds[beacon.claims.kind] * 1000;
  return {
    countedWithinWindow: stored.countedWithinWindow || earlier.some((e) => e.at > windowStart),
    tokenCounted: stored.tokenCounted + earlier.filter((e) => e.requestId === beacon.claims.requestId).length,
    recentClicks: stored.recentClicks,
  };
}

/**
 * The status of each beacon of a stretch, in the log's order. `stored` holds, at a beacon's index,
 * what the store found before it: needed for every beacon screenBeacon lets through.
 */
export function decideStatuses(batch: readonly LoggedBeacon[], stored: readonly (StoredHistory | undefined)[], limits: TrafficLimits): EventStatus[] {
  const counted: CountedInStretch = new Map();
  return batch.map((beacon, index) => {
    const screened = screenBeacon(beacon);
    if (screened !== null) return screened;
    const before = stored[index];
    if (before === undefined) throw new Error(`beacon ${beacon.eventId} has no stored history to be decided against`);
    const status = decideAgainstHistory(beacon, withStretch(beacon, before, counted, limits), limits);
    if (status === "counted") {
      const key = pairKindOf(beacon);
      const entry = { at: beacon.createdAt.getTime(), requestId: beacon.claims.requestId };
      const earlier = counted.get(key);
      if (earlier) earlier.push(entry);
      else counted.set(key, [entry]);
    }
    return status;
  });
}
