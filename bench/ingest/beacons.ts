// The beacons both ingest benchmarks send: impressions of a CPM display ad of the demo seed, on
// Demo Market, each with its own request id, signed with a key the benchmark gives the servers.
import { randomUUID } from "node:crypto";
import { sessionHashOf, signBeaconToken } from "@/server/ingest/beacon-token";

// What a browser's beacon carries: a user agent (checked for bots, stored) and the page's origin
// (answered with CORS headers). Every server of the ingest benchmarks is sent them, baselines included.
export const BROWSER_HEADERS = {
  "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36",
  origin: "https://demomarket.com",
};

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
