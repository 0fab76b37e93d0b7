// A beacon as the log hands it to settling, for tests of the settle rules that need no database:
// a counted-looking browser impression unless the overrides say otherwise, each with its own ids.
import type { EventClaims, LoggedBeacon } from "@/server/store/settle-types";

export const BROWSER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";

let next = 0;

export function loggedBeacon(overrides: Omit<Partial<LoggedBeacon>, "claims"> & { claims?: Partial<EventClaims> } = {}): LoggedBeacon {
  next += 1;
  const createdAt = overrides.createdAt ?? new Date("2026-03-02T12:00:00Z");
  const { claims, ...rest } = overrides;
  return {
    acceptedXid: "1000",
    seq: String(next),
    receivedAt: createdAt,
    eventId: `event-${next}`,
    sessionId: "session-1",
    userId: null,
    userAgent: BROWSER_AGENT,
    isBot: false,
    sessionMatches: true,
    clientHash: null,
    createdAt,
    ...rest,
    claims: {
      kind: "impression",
      requestId: `request-${next}`,
      adId: "ad-1",
      campaignId: "campaign-1",
      advertiserId: "advertiser-1",
      publisherId: "publisher-1",
      site: "shop.example",
      placementName: "home",
      context: "home",
      adType: "banner",
      adSize: "300x250",
      searchTerm: null,
      category: null,
      ...claims,
    },
  };
}
