// The shipper alone on a settled backlog: a backlog is settled once with ClickHouse as the store
// (its outbox left waiting), then shipped `--rounds` times, each into a fresh chdb folder with the
// outbox set back to waiting, by one ship process whose CPU time (/proc/<pid>/stat) from the
// release of the outbox to the last batch marked is the round's. `--cpu-prof` profiles the ship process (written to --cpu-prof-dir).
// `--trickle-ms N` lets the batches go one every N ms instead of all at once, as settling makes them.
//   node --import tsx bench/clickhouse/ship-alone.ts --events 200000 --rounds 3 [--cpu-prof DIR] [--trickle-ms N]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { cpuSeconds } from "../lib/cpu";
import { log, startSeededDatabase } from "../lib/stack";
import { appendBacklog, prepareAds } from "../settle/traffic";
import { selectCount } from "./clickhouse-count";

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "200000" },
    rounds: { type: "string", default: "3" },
    "cpu-prof": { type: "string" },
    "trickle-ms": { type: "string" },
  },
});

function child(url: string, role: "settle" | "ship", clickhouseUrl: string, nodeArgs: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, "--import", "tsx", "bench/clickhouse/settle-child.ts", role], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      CLICKHOUSE_URL: clickhouseUrl,
      TALLY_LOG_LEVEL: "warn",
      NODE_ENV: "production",
      BEACON_SIGNING_KEYS: "bench:tally-bench-signing-key-0123456789abcdef",
      TALLY_SECRETS_KEY: Buffer.from("tally-bench-secrets-key-32-bytes").toString("base64"),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

const events = Number(values.events);
const { postgres, url } = await startSeededDatabase("clickhouse-ship-alone");
const client = new pg.Client({ connectionString: url });
await client.connect();
const folders: string[] = [];
const freshFolder = () => {
  const folder = mkdtempSync(path.join(tmpdir(), "tally-bench-chdb-"));
  folders.push(folder);
  return folder;
};
try {
  const ads = await prepareAds(client, 64);
  await appendBacklog(url, ads, events, "ship-alone");
  const settleFolder = freshFolder();
  const settler = child(url, "settle", `chdb:${settleFolder}`);
  const settled = async () => Number((await client.query("SELECT coalesce(sum(settled_events), 0)::bigint AS n FROM settle_cursors")).rows[0].n);
  while ((await settled()) < events) await new Promise((resolve) => setTimeout(resolve, 100));
  settler.kill("SIGKILL");
  const outbox = (await client.query("SELECT count(*)::int AS batches, sum(rows)::int AS rows FROM clickhouse_batches")).rows[0];
  log(`settled ${events.toLocaleString("en")} events: ${outbox.batches} outbox batches, ${outbox.rows} rows`);
  for (let round = 1; round <= Number(values.rounds); round++) {
    // Waiting again, but leased until the ship process has started and made its tables, so the
    // round's CPU is shipping's alone.
    await client.query(
      "UPDATE clickhouse_batches SET shipped_at = NULL, leased_until = now() + interval '1 hour', created_at = now(), attempts = 0, last_error = NULL, set_aside = 0",
    );
    const folder = freshFolder();
    const nodeArgs = values["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-dir", values["cpu-prof"]] : [];
    const shipper = child(url, "ship", `chdb:${folder}`, nodeArgs);
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    for (let last = -1; ; ) {
      await pause(500);
      const now = cpuSeconds(shipper.pid!);
      if (now - last < 0.03) break;
      last = now;
    }
    const startCpu = cpuSeconds(shipper.pid!);
    const started = Date.now();
    const trickle = values["trickle-ms"] ? Number(values["trickle-ms"]) : 0;
    if (trickle > 0) {
      // As settling makes them: one batch let go every `trickle` ms, in id order, none older than
      // its release (a shipper that gathers goes by the age of the oldest waiting).
      await client.query("UPDATE clickhouse_batches SET created_at = now() + interval '1 hour'");
      const { rows } = await client.query<{ id: string }>("SELECT b.id::text AS id FROM clickhouse_batches b ORDER BY b.id");
      for (const { id } of rows) {
        await client.query("UPDATE clickhouse_batches SET leased_until = NULL, created_at = now() WHERE id = $1", [id]);
        await pause(trickle);
      }
    } else await client.query("UPDATE clickhouse_batches SET leased_until = NULL");
    for (;;) {
      const { waiting } = (await client.query("SELECT count(*)::int AS waiting FROM clickhouse_batches WHERE shipped_at IS NULL")).rows[0];
      if (waiting === 0) break;
      await pause(20);
    }
    const cpu = cpuSeconds(shipper.pid!) - startCpu;
    const seconds = (Date.now() - started) / 1000;
    if (values["cpu-prof"]) {
      shipper.kill("SIGINT");
      await new Promise((resolve) => shipper.once("exit", resolve));
    } else shipper.kill("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 200));
    const inClickhouse = await selectCount(`chdb:${folder}`, "SELECT count() AS n FROM ad_events");
    // Each insert takes the next block number.
    const inserts = await selectCount(`chdb:${folder}`, "SELECT max(max_block_number) AS n FROM system.parts WHERE table = 'ad_events'");
    log(
      `ship round ${round}: ${seconds.toFixed(1)} s, ${cpu.toFixed(2)} CPU s (its start: ${startCpu.toFixed(2)} CPU s); ${inClickhouse} rows in ClickHouse in ${inserts} inserts`,
    );
  }
} finally {
  await client.end();
  await postgres.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}
