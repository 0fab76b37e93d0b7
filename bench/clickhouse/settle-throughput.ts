// Settling with ClickHouse as the store, shipping included, against settling with Postgres as the
// store: the same backlog shape (bench/settle/traffic.ts), the same number of settle processes,
// one database. A run's rate is events from the first settled stretch until the last event is
// settled and, with ClickHouse, shipped (every outbox batch marked and its rows in ClickHouse).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { cpuSecondsIfAlive, postgresCpuSeconds, postgresCpuSecondsSince } from "../lib/cpu";
import { log, startSeededDatabase } from "../lib/stack";
import { appendBacklog, prepareAds } from "../settle/traffic";

function child(url: string, role: "settle" | "ship", clickhouseUrl: string | null): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "bench/clickhouse/settle-child.ts", role], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      ...(clickhouseUrl ? { CLICKHOUSE_URL: clickhouseUrl } : {}),
      TALLY_LOG_LEVEL: "warn",
      NODE_ENV: "production",
      BEACON_SIGNING_KEYS: "bench:tally-bench-signing-key-0123456789abcdef",
      TALLY_SECRETS_KEY: Buffer.from("tally-bench-secrets-key-32-bytes").toString("base64"),
    },
    stdio: ["ignore", role === "ship" ? "pipe" : "ignore", "inherit"],
  });
}

interface RunResult {
  eventsPerSecond: number;
  seconds: number;
  /** Seconds until the last event was settled (before the shipper caught up, with ClickHouse). */
  settledSeconds: number;
  /** CPU seconds of the settle processes and of the shipper (0 without ClickHouse). */
  settleCpu: number;
  shipCpu: number;
  /** CPU seconds of Postgres's processes during the run. */
  postgresCpu: number;
}

/** Resolves once the shipper says it is ready (chdb loaded, migrations applied). */
function ready(shipper: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    shipper.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve();
    });
    shipper.once("exit", (code) => reject(new Error(`the shipper ended (${code}) before it was ready`)));
  });
}

async function run(client: pg.Client, url: string, workers: number, events: number, clickhouseUrl: string | null): Promise<RunResult> {
  const settled = async () => Number((await client.query("SELECT coalesce(sum(settled_events), 0)::bigint AS n FROM settle_cursors")).rows[0].n);
  const unshipped = async () => Number((await client.query("SELECT count(*)::int AS n FROM clickhouse_batches WHERE shipped_at IS NULL")).rows[0].n);
  const before = await settled();
  // The shipper is a standing process, as in the worker: it starts (loads chdb, applies migrations)
  // before settling does, and its CPU is counted from then on.
  const shipper = clickhouseUrl ? child(url, "ship", clickhouseUrl) : undefined;
  const processes: ChildProcess[] = shipper ? [shipper] : [];
  try {
    if (shipper) await ready(shipper);
    const shipCpuAtStart = cpuSecondsIfAlive(shipper?.pid);
    const postgresAtStart = postgresCpuSeconds();
    const settlers = Array.from({ length: workers }, () => child(url, "settle", clickhouseUrl));
    processes.push(...settlers);
    let first: { at: number; n: number } | null = null;
    let settledAt: number | null = null;
    for (;;) {
      const n = await settled();
      if (first === null && n > before) first = { at: Date.now(), n };
      if (n - before >= events) settledAt ??= Date.now();
      if (n - before >= events && (clickhouseUrl === null || (await unshipped()) === 0)) {
        const seconds = (Date.now() - first!.at) / 1000;
        return {
          eventsPerSecond: Math.round((n - first!.n) / seconds),
          seconds,
          settledSeconds: (settledAt! - first!.at) / 1000,
          settleCpu: settlers.reduce((sum, process) => sum + cpuSecondsIfAlive(process.pid), 0),
          shipCpu: shipper ? cpuSecondsIfAlive(shipper.pid) - shipCpuAtStart : 0,
          postgresCpu: postgresCpuSecondsSince(postgresAtStart),
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    for (const process of processes) process.kill("SIGKILL");
  }
}

export interface SettleFigures {
  postgres: number[];
  clickhouse: number[];
  /** Median ClickHouse rate over median Postgres rate. */
  ratio: number;
  shippedRowsInClickhouse: number;
  eventsInPostgres: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Rounds of both modes on one database, the first mode of a round alternating (Postgres then ClickHouse, ClickHouse then Postgres, ...). */
export async function measureSettling(options: { events: number; advertisers: number; workers: number; rounds: number }): Promise<SettleFigures> {
  const { postgres, url } = await startSeededDatabase("clickhouse-settle");
  const folder = mkdtempSync(path.join(tmpdir(), "tally-bench-chdb-"));
  const clickhouseUrl = `chdb:${folder}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const ads = await prepareAds(client, options.advertisers);
    const figures: SettleFigures = { postgres: [], clickhouse: [], ratio: 0, shippedRowsInClickhouse: 0, eventsInPostgres: 0 };
    for (let round = 1; round <= options.rounds; round++) {
      // Each round adds its events to the history the next round's decisions read: the modes take
      // turns going first, so neither always settles against the larger history.
      const order = round % 2 === 1 ? (["postgres", "clickhouse"] as const) : (["clickhouse", "postgres"] as const);
      for (const mode of order) {
        await appendBacklog(url, ads, options.events, `${mode} round ${round}`);
        const result = await run(client, url, options.workers, options.events, mode === "clickhouse" ? clickhouseUrl : null);
        figures[mode].push(result.eventsPerSecond);
        log(
          `settle, ${mode} as the store, round ${round}: ${result.eventsPerSecond.toLocaleString("en")} events/s (${result.seconds.toFixed(1)} s; all settled after ${result.settledSeconds.toFixed(1)} s; CPU s: settling ${result.settleCpu.toFixed(1)}, shipping ${result.shipCpu.toFixed(1)}, Postgres ${result.postgresCpu.toFixed(1)})`,
        );
      }
    }
    figures.ratio = median(figures.clickhouse) / median(figures.postgres);
    figures.eventsInPostgres = Number((await client.query("SELECT count(*) AS n FROM ad_events WHERE clickhouse_batch IS NOT NULL")).rows[0].n);
    // The shipped rows, counted in ClickHouse by a process of its own once the shipper has let go of the folder.
    const { selectCount } = await import("./clickhouse-count");
    figures.shippedRowsInClickhouse = await selectCount(clickhouseUrl, "SELECT count() AS n FROM ad_events");
    return figures;
  } finally {
    await client.end();
    await postgres.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}
