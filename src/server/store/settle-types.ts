// What settling hands the store and gets back, whatever the engine: the beacons of a stretch of
// the log and what each became. No engine's types here: a store outside Postgres takes the same.
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

/** What a beacon became: its status and what it cost. */
export interface SettledBeacon {
  eventId: string;
  status: EventStatus;
  spendMicros: bigint;
}
