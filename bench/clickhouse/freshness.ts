// Freshness with ClickHouse as the store: from a beacon's 202 to its count in a report. One
// `next start` with ClickHouse as its store runs its own settle and ship loops; the bench posts an
// impression of the demo's Northwind display ad (each in a fresh session, so each is counted),
// then asks the campaign's report until its impressions went up by one, and times that. Beacons
// go one at a time, so each sample is one beacon's own way through settle, ship and the report.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "@/cli/local/embedded-postgres";
import { nextServerArgs } from "@/cli/next-server";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { utcDay } from "@/server/core/days";
import { disconnectDb } from "@/server/db/client";
import { BENCH_SIGNING_KEYS, BROWSER_HEADERS, impressionPath } from "../ingest/beacons";
import { ensureProductionBuild, log, startSeededDatabase, startServer, stopServer } from "../lib/stack";
import { percentile, round } from "../reports/timing";

export interface FreshnessFigures {
  samples: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}

export async function measureFreshness(options: { samples: number; timeoutMs: number }): Promise<FreshnessFigures> {
  await ensureProductionBuild();
  const { postgres, url } = await startSeededDatabase("clickhouse-freshness");
  const folder = mkdtempSync(path.join(tmpdir(), "tally-bench-fresh-"));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const server = await startServer(
    "next start (clickhouse)",
    nextServerArgs("start", "--port", String(port)),
    {
      DATABASE_URL: url,
      CLICKHOUSE_URL: `chdb:${folder}`,
      BEACON_SIGNING_KEYS: BENCH_SIGNING_KEYS,
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_ENV: "production",
      TALLY_SETTLE_INTERVAL_SECONDS: "1",
      TALLY_ATTRIBUTION_INTERVAL_SECONDS: "0",
      TALLY_EXPORT_INTERVAL_SECONDS: "0",
      TALLY_REPORT_RATE_PER_SECOND: "100000",
    },
    `${origin}/api/health`,
  );
  try {
    const key = (await createApiKey({ actor: OPERATOR, accountId: "adv_northwind", name: "bench:freshness" })).key;
    const day = utcDay();
    const impressions = async () => {
      const response = await fetch(`${origin}/campaign/cmp_northwind_display?start_date=${day}&end_date=${day}`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      if (response.status !== 200) throw new Error(`the campaign report answered ${response.status}`);
      return ((await response.json()) as { data: { impressions_total: number } }).data.impressions_total;
    };
    const times: number[] = [];
    for (let sample = 0; sample < options.samples; sample++) {
      const before = await impressions();
      const session = `fresh-${sample}-${Date.now()}`;
      const response = await fetch(`${origin}${impressionPath("bench-fresh", Math.floor(Date.now() / 1000), session)}`, {
        method: "POST",
        headers: { ...BROWSER_HEADERS, "content-type": "application/json" },
        body: JSON.stringify({ session_id: session }),
      });
      if (response.status !== 202) throw new Error(`the beacon answered ${response.status}`);
      const accepted = performance.now();
      for (;;) {
        if ((await impressions()) > before) break;
        if (performance.now() - accepted > options.timeoutMs) throw new Error(`a beacon was not in the report after ${options.timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      times.push(performance.now() - accepted);
    }
    times.sort((a, b) => a - b);
    log(`freshness: ${times.length} beacons, p50 ${round(percentile(times, 50))} ms, p95 ${round(percentile(times, 95))} ms`);
    return { samples: times.length, p50_ms: round(percentile(times, 50)), p95_ms: round(percentile(times, 95)), max_ms: round(times.at(-1)!) };
  } finally {
    await stopServer(server);
    // The next phase points this process at another database: let go of this one's clients.
    await disconnectDb();
    await postgres.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
