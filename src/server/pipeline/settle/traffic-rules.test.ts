import { describe, expect, it } from "vitest";
import type { EventStatus } from "@/server/core/event-status";
import type { EventKind, LoggedBeacon, StoredHistory, TrafficLimits } from "@/server/store/settle-types";
import { BROWSER_AGENT, loggedBeacon } from "@/testing/logged-beacon";
import {
  DEDUP_WINDOW_SECONDS,
  decideStatuses,
  dropBot,
  dropClickVelocity,
  dropDuplicate,
  dropMissingUserAgent,
  dropSessionMismatch,
  dropTokenReuse,
  MAX_COUNTED_PER_TOKEN,
  screenBeacon,
} from "./traffic-rules";

const T0 = Date.parse("2026-03-02T12:00:00Z");

const LIMITS: TrafficLimits = {
  dedupWindowSeconds: DEDUP_WINDOW_SECONDS,
  tokenSpanSeconds: { impression: 86_700, view: 86_700, click: 605_100 },
  maxCountedPerToken: MAX_COUNTED_PER_TOKEN,
  clicksPerAddressPerMinute: 30,
};

/** Nothing stored before the beacon. */
const NOTHING: StoredHistory = { countedWithinWindow: false, tokenCounted: 0, recentClicks: 0 };
const stored = (history: Partial<StoredHistory> = {}): StoredHistory => ({ ...NOTHING, ...history });

interface BeaconCase {
  kind?: EventKind;
  /** Seconds after T0. */
  at?: number;
  requestId?: string;
  adId?: string;
  sessionId?: string;
  isBot?: boolean;
  userAgent?: string | null;
  sessionMatches?: boolean;
  clientHash?: string | null;
}

function beacon(given: BeaconCase = {}): LoggedBeacon {
  const kind = given.kind ?? "impression";
  return loggedBeacon({
    createdAt: new Date(T0 + (given.at ?? 0) * 1000),
    sessionId: given.sessionId ?? "session-1",
    userAgent: given.userAgent === undefined ? BROWSER_AGENT : given.userAgent,
    isBot: given.isBot ?? false,
    sessionMatches: given.sessionMatches ?? true,
    clientHash: given.clientHash === undefined ? (kind === "click" ? "address-1" : null) : given.clientHash,
    claims: { kind, adId: given.adId ?? "ad-1", ...(given.requestId === undefined ? {} : { requestId: given.requestId }) },
  });
}

describe("the rules that need nothing stored", () => {
  it.each([
    { name: "a known bot's agent", given: { isBot: true }, drops: "bot" },
    { name: "a browser's agent", given: {}, drops: null },
  ])("dropBot: $name → $drops", ({ given, drops }) => {
    expect(dropBot(beacon(given))).toBe(drops);
  });

  it.each([
    { name: "no user agent", given: { userAgent: null }, drops: "no_user_agent" },
    { name: "a user agent", given: {}, drops: null },
  ])("dropMissingUserAgent: $name → $drops", ({ given, drops }) => {
    expect(dropMissingUserAgent(beacon(given))).toBe(drops);
  });

  it.each([
    { name: "another session than the token's", given: { sessionMatches: false }, drops: "session_mismatch" },
    { name: "the token's session", given: {}, drops: null },
  ])("dropSessionMismatch: $name → $drops", ({ given, drops }) => {
    expect(dropSessionMismatch(beacon(given))).toBe(drops);
  });

  it.each<{ name: string; given: BeaconCase; status: EventStatus | null }>([
    { name: "a bot without a user agent from another session is a bot", given: { isBot: true, userAgent: null, sessionMatches: false }, status: "bot" },
    { name: "no user agent from another session is no_user_agent", given: { userAgent: null, sessionMatches: false }, status: "no_user_agent" },
    { name: "another session alone is session_mismatch", given: { sessionMatches: false }, status: "session_mismatch" },
    { name: "a browser in its session is left to what was stored", given: {}, status: null },
  ])("screenBeacon: $name", ({ given, status }) => {
    expect(screenBeacon(beacon(given))).toBe(status);
  });
});

describe("the rules against what was stored", () => {
  it.each<{ name: string; kind: EventKind; history: Partial<StoredHistory>; drops: "duplicate" | null }>([
    { name: "an impression counted inside the window", kind: "impression", history: { countedWithinWindow: true }, drops: "duplicate" },
    { name: "a click counted inside the window", kind: "click", history: { countedWithinWindow: true }, drops: "duplicate" },
    { name: "an impression whose token was counted", kind: "impression", history: { tokenCounted: 1 }, drops: "duplicate" },
    { name: "a view whose token was counted", kind: "view", history: { tokenCounted: 1 }, drops: "duplicate" },
    { name: "a click whose token was counted, outside the window", kind: "click", history: { tokenCounted: 1 }, drops: null },
    { name: "an impression with nothing counted", kind: "impression", history: {}, drops: null },
  ])("dropDuplicate: $name → $drops", ({ kind, history, drops }) => {
    expect(dropDuplicate(beacon({ kind }), stored(history))).toBe(drops);
  });

  it.each([
    { tokenCounted: 0, drops: null },
    { tokenCounted: MAX_COUNTED_PER_TOKEN - 1, drops: null },
    { tokenCounted: MAX_COUNTED_PER_TOKEN, drops: "token_reuse" },
    { tokenCounted: MAX_COUNTED_PER_TOKEN + 1, drops: "token_reuse" },
  ])("dropTokenReuse: a token counted $tokenCounted times → $drops", ({ tokenCounted, drops }) => {
    expect(dropTokenReuse(stored({ tokenCounted }), LIMITS)).toBe(drops);
  });

  it.each<{ name: string; given: BeaconCase; recentClicks: number; drops: "click_velocity" | null }>([
    { name: "a click one under the allowance", given: { kind: "click" }, recentClicks: 29, drops: null },
    { name: "a click at the allowance", given: { kind: "click" }, recentClicks: 30, drops: "click_velocity" },
    { name: "a click past the allowance", given: { kind: "click" }, recentClicks: 31, drops: "click_velocity" },
    { name: "a click without an address", given: { kind: "click", clientHash: null }, recentClicks: 30, drops: null },
    { name: "an impression from a busy address", given: { kind: "impression", clientHash: "address-1" }, recentClicks: 30, drops: null },
  ])("dropClickVelocity: $name → $drops", ({ given, recentClicks, drops }) => {
    expect(dropClickVelocity(beacon(given), stored({ recentClicks }), LIMITS)).toBe(drops);
  });
});

describe("decideStatuses", () => {
  it.each<{ name: string; given: BeaconCase; history?: Partial<StoredHistory>; status: EventStatus }>([
    { name: "a bot, even with a repeat stored", given: { isBot: true }, history: { countedWithinWindow: true }, status: "bot" },
    { name: "another session, even with a repeat stored", given: { sessionMatches: false }, history: { tokenCounted: 5 }, status: "session_mismatch" },
    {
      name: "a click repeated inside the window, its token spent, from a busy address: duplicate",
      given: { kind: "click" },
      history: { countedWithinWindow: true, tokenCounted: MAX_COUNTED_PER_TOKEN, recentClicks: 30 },
      status: "duplicate",
    },
    {
      name: "a click with its token spent, from a busy address: token_reuse",
      given: { kind: "click" },
      history: { tokenCounted: MAX_COUNTED_PER_TOKEN, recentClicks: 30 },
      status: "token_reuse",
    },
    { name: "a click from a busy address alone: click_velocity", given: { kind: "click" }, history: { recentClicks: 30 }, status: "click_velocity" },
    { name: "an impression with its token spent: duplicate first", given: {}, history: { tokenCounted: MAX_COUNTED_PER_TOKEN }, status: "duplicate" },
    { name: "nothing against it: counted", given: { kind: "click" }, history: { tokenCounted: 2, recentClicks: 29 }, status: "counted" },
  ])("of one beacon, first rule wins: $name", ({ given, history, status }) => {
    expect(decideStatuses([beacon(given)], [stored(history)], LIMITS)).toEqual([status]);
  });

  it.each<{ name: string; stretch: BeaconCase[]; history?: Partial<StoredHistory>[]; statuses: EventStatus[] }>([
    { name: "an impression 59 s after a counted one is a duplicate", stretch: [{ at: 0 }, { at: 59 }], statuses: ["counted", "duplicate"] },
    { name: "an impression just inside the window is a duplicate", stretch: [{ at: 0 }, { at: 59.999 }], statuses: ["counted", "duplicate"] },
    { name: "an impression exactly 60 s after is past the window", stretch: [{ at: 0 }, { at: 60 }], statuses: ["counted", "counted"] },
    {
      name: "a click exactly an hour after is past the window",
      stretch: [
        { kind: "click", at: 0 },
        { kind: "click", at: 3599.999 },
        { kind: "click", at: 3600 },
      ],
      statuses: ["counted", "duplicate", "counted"],
    },
    { name: "a duplicate does not open a window of its own", stretch: [{ at: 0 }, { at: 30 }, { at: 70 }], statuses: ["counted", "duplicate", "counted"] },
    { name: "a bot does not open a window", stretch: [{ at: 0, isBot: true }, { at: 10 }], statuses: ["bot", "counted"] },
    {
      name: "other sessions, ads and kinds are apart",
      stretch: [{ at: 0 }, { at: 1, sessionId: "session-2" }, { at: 2, adId: "ad-2" }, { at: 3, kind: "view" }],
      statuses: ["counted", "counted", "counted", "counted"],
    },
    {
      name: "an impression's token counted earlier in the stretch is a duplicate past the window",
      stretch: [
        { at: 0, requestId: "token" },
        { at: 120, requestId: "token" },
      ],
      statuses: ["counted", "duplicate"],
    },
    {
      name: "a click token counted three times in the stretch is spent",
      stretch: [0, 3600, 7200, 10800].map((at) => ({ kind: "click" as const, at, requestId: "token" })),
      statuses: ["counted", "counted", "counted", "token_reuse"],
    },
    {
      name: "a click token's stored count and the stretch's add up",
      stretch: [0, 3600].map((at) => ({ kind: "click" as const, at, requestId: "token" })),
      history: [{ tokenCounted: MAX_COUNTED_PER_TOKEN - 1 }, { tokenCounted: MAX_COUNTED_PER_TOKEN - 1 }],
      statuses: ["counted", "token_reuse"],
    },
    {
      name: "a counted event stored inside the window makes the first a duplicate",
      stretch: [{ at: 0 }],
      history: [{ countedWithinWindow: true }],
      statuses: ["duplicate"],
    },
  ])("of a stretch, in the log's order: $name", ({ stretch, history, statuses }) => {
    const batch = stretch.map(beacon);
    expect(
      decideStatuses(
        batch,
        batch.map((_, i) => stored(history?.[i])),
        LIMITS,
      ),
    ).toEqual(statuses);
  });

  it("needs no stored history for a beacon the screening rules drop, and refuses to decide another without it", () => {
    expect(decideStatuses([beacon({ isBot: true }), beacon({ userAgent: null })], [], LIMITS)).toEqual(["bot", "no_user_agent"]);
    expect(() => decideStatuses([beacon()], [], LIMITS)).toThrow(/no stored history/);
  });
});
