// `node --import tsx bench/ingest/ceiling-cost.ts [--requests 1000000]`: what the daily intake
// ceilings cost a beacon, in-process, without HTTP: the call record-beacon.ts makes
// (withinIntakeCeiling, count and bytes), timed over many beacons, and the lease rows it left in
// Postgres. Each case runs in a child process of its own, since the ceilings are read from the
// environment once. For a change smaller than the spread between runs of `bench:ingest`.
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import pg from "pg";
import { log, startDatabase } from "../lib/stack";

const { values } = parseArgs({ options: { requests: { type: "string", default: "1000000" }, case: { type: "string" } } });
const requests = Number(values.requests);

interface Case {
  name: string;
  env: Record<string, string>;
  /** The nth beacon's publisher. */
  publisher: (n: number) => string;
}

const CASES: Case[] = [
  { name: "the ingest benchmark's load: one publisher, the default ceilings", env: {}, publisher: () => "pub_demo_market" },
  { name: "20 publishers, the default ceilings", env: {}, publisher: (n) => `pub_${n % 20}` },
  {
    name: "a flood past one publisher's ceiling of 10,000 beacons a day",
    env: { TALLY_BEACONS_PER_PUBLISHER_DAY: "10000" },
    publisher: () => "pub_flooded",
  },
];

// A browser's beacon as stored: about 330 bytes.
const BEACON_BYTES = 330;

async function runCase(which: Case): Promise<void> {
  const { withinIntakeCeiling } = await import("@/server/pipeline/accept/intake-ceiling");
  const { pgPool } = await import("@/server/db/pg-pool");
  const publishers = Array.from({ length: 1000 }, (_, n) => which.publisher(n));
  let admitted = 0;
  let refused = 0;
  const started = process.cpuUsage();
  for (let n = 0; n < requests; n += 1) {
    try {
      const admission = withinIntakeCeiling("beacons", publishers[n % 1000]!, BEACON_BYTES);
      if (admission) await admission;
      admitted += 1;
    } catch {
      refused += 1;
    }
  }
  const cpu = process.cpuUsage(started);
  const { rows } = await pgPool().query<{ keys: number; taken: string }>(
    "SELECT count(*)::int AS keys, coalesce(sum(taken), 0)::text AS taken FROM intake_ceiling_windows",
  );
  console.log(
    JSON.stringify({ admitted, refused, cpuNsPerRequest: Math.round(((cpu.user + cpu.system) * 1000) / requests), keys: rows[0]!.keys, taken: rows[0]!.taken }),
  );
  process.exit(0);
}

if (values.case !== undefined) {
  await runCase(CASES[Number(values.case)]!);
} else {
  const { postgres, url } = await startDatabase("ceiling-cost");
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    for (const [index, which] of CASES.entries()) {
      await pool.query("TRUNCATE intake_ceiling_windows");
      const child = spawnSync(process.execPath, ["--import", "tsx", "bench/ingest/ceiling-cost.ts", "--case", String(index), "--requests", String(requests)], {
        env: {
          ...process.env,
          DATABASE_URL: url,
          NODE_ENV: "production",
          BEACON_SIGNING_KEYS: "bench:bench-signing-key-for-the-ingest-benchmark-only",
          ...which.env,
        },
        encoding: "utf8",
      });
      if (child.status !== 0) throw new Error(`case ${index} failed: ${child.stderr}`);
      const result = JSON.parse(child.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
      log(
        `${which.name}: ${result.cpuNsPerRequest} ns of CPU a beacon, ${result.admitted} admitted, ${result.refused} refused, ` +
          `${result.keys} keys in intake_ceiling_windows holding ${result.taken} taken, over ${requests.toLocaleString("en")} beacons`,
      );
    }
  } finally {
    await pool.end();
    await postgres.stop();
  }
}
