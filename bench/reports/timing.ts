// Timing the report routes, shared by `npm run bench:reports` (Postgres as the store) and
// `npm run bench:clickhouse` (both stores, side by side) and `npm run bench:reports:before-after`:
// the routes and keys of the report dataset (dataset.ts), and p50/p95 of requests made one after
// another after 10 to warm up.
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { UTC } from "@/server/core/time-zones";
import { CATALOGUE_ADVERTISER, LARGE_ADVERTISER, LARGE_PUBLISHER, NETWORK } from "./dataset";

/** bench:reports's targets: p95 per JSON route; the XLSX download's (and the report job's) time, peak memory and rows. */
export const REPORT_TARGETS = { p95Ms: 50, xlsxSeconds: 10, xlsxPeakMb: 300, xlsxRows: 100_000 };

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

/**
 * Every report route as [name, path with query, key], over `range` (start_date=...&end_date=...),
 * read in `zone` (`time_zone`; null: no parameter, as before reports had zones). Always named:
 * the large advertiser's own zone is America/Sao_Paulo (dataset.ts, ZONED_READS), so a route
 * without it would read there, not in UTC.
 */
export function reportRoutes(range: string, keys: ReportKeys, zone: string | null = UTC): [string, string, string][] {
  const query = zone === null ? range : `${range}&time_zone=${encodeURIComponent(zone)}`;
  return [
    ["/campaign/v2", `/campaign/v2?${query}`, keys.advertiser],
    ["/campaign/:id", `/campaign/bcmp-large-001?${query}`, keys.advertiser],
    ["/ad/results/v2", `/ad/results/v2?${query}`, keys.advertiser],
    ["/report/v2/publishers", `/report/v2/publishers?${query}`, keys.advertiser],
    ["/report/advertisers/campaigns-detailed", `/report/advertisers/campaigns-detailed?${query}`, keys.advertiser],
    ["/report/advertisers/ads-detailed", `/report/advertisers/ads-detailed?${query}`, keys.advertiser],
    ["/report/v2/advertisers (publisher key)", `/report/v2/advertisers?${query}`, keys.publisher],
    ["/report/network/publishers (network key)", `/report/network/publishers?${query}`, keys.network],
  ];
}

/** The hours report (weekday × local hour) of the large advertiser over `range`, as JSON, in `zone`. */
export const hoursRoute = (range: string, keys: ReportKeys, zone: string): [string, string, string] => [
  "/report/hours",
  `/report/hours?${range}&time_zone=${encodeURIComponent(zone)}`,
  keys.advertiser,
];
