// What src/proxy.ts costs a /v1 beacon under `next start`, where the proxy itself never runs: once
// a proxy exists, Next.js's router tests every request's path against its matcher (decoding the
// path, then matching it raw and decoded: next/dist/server/lib/router-utils/resolve-routes.js).
// This times exactly that, with the matchers of the built app (.next, from `npm run build`), for
// a beacon's path and for a page's. Usage: node --import tsx bench/web/proxy-matcher.ts
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { getMiddlewareRouteMatcher } = require("next/dist/shared/lib/router/utils/middleware-route-matcher") as {
  getMiddlewareRouteMatcher: (matchers: unknown[]) => (pathname: string, req: unknown, query: unknown) => boolean;
};
const manifest = JSON.parse(readFileSync(".next/server/functions-config-manifest.json", "utf8")) as { functions: Record<string, { matchers?: unknown[] }> };
const matchers = manifest.functions["/_middleware"]?.matchers;
if (!matchers) throw new Error("no proxy in .next: run npm run build first");
const match = getMiddlewareRouteMatcher(matchers);
const req = { headers: {} };

// A beacon address as the ad query signs it: /v1/beacon/<kind>/<kid>.<claims>.<signature>.
const beacon = `/v1/beacon/impression/k1.${"eyJhIjoiYWRfZGVtbyIsImMiOiJjbXBfZGVtbyIsInAiOiJwdWJfZGVtbyJ9".repeat(2)}.${"Q".repeat(43)}`;
const page = "/dashboard/campaigns";

function perCall(pathname: string, rounds: number): { us: number; matched: boolean } {
  let matched = false;
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i += 1) {
    let decoded = pathname;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {}
    matched = match(pathname, req, {}) || match(decoded, req, {});
  }
  return { us: Number(process.hrtime.bigint() - started) / rounds / 1000, matched };
}

for (const [name, pathname] of [
  ["beacon", beacon],
  ["page", page],
] as const) {
  perCall(pathname, 200_000); // warm-up
  const runs = Array.from({ length: 5 }, () => perCall(pathname, 500_000)).sort((a, b) => a.us - b.us);
  console.log(`${name}: median ${runs[2]!.us.toFixed(2)} µs a request, fastest ${runs[0]!.us.toFixed(2)} µs (the proxy runs: ${runs[0]!.matched})`);
}
