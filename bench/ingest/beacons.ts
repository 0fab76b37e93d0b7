// The beacons both ingest benchmarks send: impressions of a CPM display ad of the demo seed, on
// Demo Market, each with its own request id, signed with a key the benchmark gives the servers.
import { randomUUID } from "node:crypto";
import { sessionHashOf, signBeaconToken } from "@/server/ingest/beacon-token";

export const BENCH_KEY = { id: "bench", secret: "bench-signing-key-for-the-ingest-benchmark-only" };
export const BENCH_SIGNING_KEYS = `${BENCH_KEY.id}:${BENCH_KEY.secret}`;

const AD = {
  adId: "ad_northwind_leaderboard",
  campaignId: "cmp_northwind_display",
  advertiserId: "adv_northwind",
  publisherId: "pub_demo_market",
  site: "demomarket.com",
  adType: "banner" as const,
  adSize: "728x90",
};

/** The path of a fresh, validly signed impression beacon, served to `sessionId` (tokens are bound to their session). */
export function impressionPath(placementName: string, issuedAt: number, sessionId: string): string {
  const token = signBeaconToken(
    { kind: "impression", requestId: randomUUID(), ...AD, placementName, context: "home", issuedAt, sessionHash: sessionHashOf(sessionId) },
    BENCH_KEY,
  );
  return `/v1/beacon/impression/${token}`;
}
