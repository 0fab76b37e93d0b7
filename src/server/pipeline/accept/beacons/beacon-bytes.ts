// What a beacon weighs once stored, one formula for the two places that weigh it: settling adds it
// to its publisher's day (publisher_daily_intake), and accepting holds it against the publisher's
// daily ceiling (../intake-ceiling.ts), so both speak of the same bytes.
import type { LoggedBeacon } from "@/server/store/settle-types";

// A row of ad_events beside its text: an id, two times, the kinds, spend and the row's own overhead.
const EVENT_ROW_BYTES = 96;

/** A beacon's text fields' lengths and a row's fixed part. */
export function storedBeaconBytes(beacon: Pick<LoggedBeacon, "claims" | "sessionId" | "userId" | "userAgent" | "clientHash">): number {
  const { claims } = beacon;
  return (
    EVENT_ROW_BYTES +
    beacon.sessionId.length +
    (beacon.userId?.length ?? 0) +
    (beacon.userAgent?.length ?? 0) +
    (beacon.clientHash?.length ?? 0) +
    claims.adId.length +
    claims.campaignId.length +
    claims.advertiserId.length +
    claims.publisherId.length +
    claims.requestId.length +
    (claims.adSize?.length ?? 0) +
    claims.placementName.length +
    claims.context.length +
    claims.site.length +
    (claims.searchTerm?.length ?? 0) +
    (claims.category?.length ?? 0)
  );
}
