// What settling hands the store and gets back, whatever the engine: the beacons of a stretch of
// the log, the stored history the invalid-traffic rules decide against (the rules themselves:
// src/server/pipeline/settle/traffic-rules.ts), the windows and limits those look-ups are bounded
// by, and what each beacon became. No engine's types here: a store outside Postgres takes the same.
import type { EventStatus } from "@/server/core/event-status";

export const EVENT_KINDS = ["impression", "view", "click"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
export type AdType = "product" | "banner" | "video";

/** What a beacon's token says about the ad it was served for, as its event stores it. */
export interface EventClaims {
  kind: EventKind;
  requestId: string;
  adId: string;
  campaignId: string;
  advertiserId: string;
  publisherId: string;
  site: string;
  placementName: string;
  context: string;
  adType: AdType;
  adSize: string | null;
  /** What the shopper searched, as normaliseSearchTerm (core/search-terms.ts) stores it; null without a term. */
  searchTerm: string | null;
  /** The page's category, as normaliseCategory stores it; null without one. */
  category: string | null;
}

/** An accepted beacon as the log keeps it, in the shard's order. */
export interface LoggedBeacon {
  /** The log's order: the accepting transaction's id, then the sequence inside it (as text: xid8 and bigint). */
  acceptedXid: string;
  seq: string;
  receivedAt: Date;
  eventId: string;
  claims: EventClaims;
  sessionId: string;
  userId: string | null;
  userAgent: string | null;
  isBot: boolean;
  sessionMatches: boolean;
  clientHash: string | null;
  /** When the beacon happened: its receipt, or the time its sender fixed (tests, imports). */
  createdAt: Date;
}

/**
 * What settling charges a stretch (pipeline/settle/spend.ts), one entry per beacon: its price in
 * micro-units (0n where none), and the advertiser's local date (YYYY-MM-DD, in accounts.time_zone)
 * its spend counts toward, the day of the daily budgets ("" where nothing is charged).
 */
export interface PricedEvents {
  spend: bigint[];
  days: string[];
}

/** What a beacon became: its status and what it cost. */
export interface SettledBeacon {
  eventId: string;
  status: EventStatus;
  spendMicros: bigint;
}

/** The windows and limits of the invalid-traffic rules: how far back the store looks and how many rows matter. */
export interface TrafficLimits {
  /** A counted event of the same (ad, session, kind) this recent makes a beacon a duplicate. */
  dedupWindowSeconds: Record<EventKind, number>;
  /** How far apart two beacons of one token can be accepted: how far back a token's counted events are looked for. */
  tokenSpanSeconds: Record<EventKind, number>;
  /** A token counted this often is spent: its counted events are read up to this many. */
  maxCountedPerToken: number;
  /** Clicks one address may make in the minute before a click: read up to this many. */
  clicksPerAddressPerMinute: number;
}

/**
 * What was stored before one beacon, as the rules need it (each count read only up to the limit
 * that matters, TrafficLimits): the store's answer for each beacon it is asked about.
 */
export interface StoredHistory {
  /** A counted event of the beacon's (ad, session, kind) inside its kind's de-duplication window. */
  countedWithinWindow: boolean;
  /** How often the beacon's token (request, ad, kind) was counted, within the token's span. */
  tokenCounted: number;
  /** For a click with a client address: that address's clicks in the minute before, any status, accepted earlier. 0 otherwise. */
  recentClicks: number;
}
