// Timing the report routes, shared by `npm run bench:reports` (Postgres as the store) and
// `npm run bench:clickhouse` (both stores, side by side): the routes and keys of the report
// dataset (dataset.ts), and p50/p95 of requests made one after another after 10 to warm up.
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { CATALOGUE_ADVERTISER, LARGE_ADVERTISER, LARGE_PUBLISHER, NETWORK } from "./dataset";

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function timeRequests(url: string, key: string | null, count: number): Promise<{ p50: number; p95: number; status: number }> {
  const headers = key ? { Authorization: `Bearer ${key}` } : undefined;
  let status = 0;
  const times: number[] = [];
  for (let i = 0; i < 10 + count; i += 1) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    status = response.status;
    if (status !== 200) throw new Error(`${url} answered ${status}`);
    if (i >= 10) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), status };
}

export type ReportKeys = Awaited<ReturnType<typeof reportKeys>>;

/** API keys of the dataset's large advertiser, catalogue advertiser, large publisher and network (DATABASE_URL's database). */
export async function reportKeys() {
  return {
    advertiser: (await createApiKey({ actor: OPERATOR, accountId: LARGE_ADVERTISER, name: "bench:reports" })).key,
    catalogue: (await createApiKey({ actor: OPERATOR, accountId: CATALOGUE_ADVERTISER, name: "bench:reports" })).key,
    publisher: (await createApiKey({ actor: OPERATOR, accountId: LARGE_PUBLISHER, name: "bench:reports" })).key,
    network: (await createApiKey({ actor: OPERATOR, accountId: NETWORK, name: "bench:reports" })).key,
  };
}

/** Every report route as [name, path with query, key], over `range` (start_date=...&end_date=...). */
export function reportRoutes(range: string, keys: ReportKeys): [string, string, string][] {
  return [
    ["/campaign/v2", `/campaign/v2?${range}`, keys.advertiser],
    ["/campaign/:id", `/campaign/bcmp-large-001?${range}`, keys.advertiser],
    ["/ad/results/v2", `/ad/results/v2?${range}`, keys.advertiser],
    ["/report/v2/publishers", `/report/v2/publishers?${range}`, keys.advertiser],
    ["/report/advertisers/campaigns-detailed", `/report/advertisers/campaigns-detailed?${range}`, keys.advertiser],
    ["/report/advertisers/ads-detailed", `/report/advertisers/ads-detailed?${range}`, keys.advertiser],
    ["/report/v2/advertisers (publisher key)", `/report/v2/advertisers?${range}`, keys.publisher],
    ["/report/network/publishers (network key)", `/report/network/publishers?${range}`, keys.network],
  ];
}
