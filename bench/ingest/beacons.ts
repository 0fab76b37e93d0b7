// The beacons both ingest benchmarks send: impressions of a CPM display ad of the demo seed, on
// Demo Market, each with its own request id, signed with a key the benchmark gives the servers.
import { randomUUID } from "node:crypto";
import { sessionHashOf, signBeaconToken } from "@/server/pipeline/accept/beacons/beacon-token";

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
  searchTerm: null,
  category: null,
};

/** The path of a fresh, validly signed impression beacon, served to `sessionId` (tokens are bound to their session). */
export function impressionPath(placementName: string, issuedAt: number, sessionId: string): string {
  const token = signBeaconToken(
    { kind: "impression", requestId: randomUUID(), ...AD, placementName, context: "home", issuedAt, sessionHash: sessionHashOf(sessionId) },
    BENCH_KEY,
  );
  return `/v1/beacon/impression/${token}`;
}

// Beacons are signed before each run, and no request of a run signs one: signing takes CPU from
// the servers, since the load generator shares the machine's two cores with them, and a server
// that answers faster would get more of its requests signed during its run
// (docs/decisions/0018-benchmark-baselines.md). A run that sends more than the pool starts it
// over: a beacon sent again is accepted and stored like the first (settling counts it a duplicate). Each
// send has its own id, posted as the beacon's user_id, so every 202 is checked for its own row.
const POOL = 200_000;

/** Signed impression beacons of distinct sessions; `basePath` replaces /v1/beacon/ for a baseline route of the same shape. */
export function beaconStream(prefix: string, basePath = "/v1/beacon/") {
  const issuedAt = Math.floor(Date.now() / 1000);
  const pool = Array.from({ length: POOL }, (_, n) => {
    const sessionId = `${prefix}-${n}`;
    return { path: impressionPath("bench", issuedAt, sessionId).replace("/v1/beacon/", basePath), sessionId };
  });
  let n = 0;
  return () => {
    const { path, sessionId } = pool[n % POOL]!;
    const id = `${sessionId}.${Math.floor(n / POOL)}`;
    n += 1;
    return { path, body: `{"session_id":"${sessionId}","user_id":"${id}"}`, id };
  };
}
