// How chdb takes the same TabSeparated rows: handed over inline with the statement (its
// rawInsert) or read from a file by `file()` (client.ts, insertThroughFile). 200,000 settled-event
// rows (by default) in 4 inserts, into a Null table (parsing alone) and into ad_events (its
// materialized view and projection too), each way in turns, the process's CPU per way and round.
//   node --import tsx bench/clickhouse/insert-paths.ts [--rows 200000] [--rounds 2]
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { log } from "../lib/stack";

const { values } = parseArgs({ options: { rows: { type: "string", default: "200000" }, rounds: { type: "string", default: "2" } } });
const folder = mkdtempSync(path.join(tmpdir(), "tally-bench-insert-paths-"));
process.env.CLICKHOUSE_URL = `chdb:${folder}`;
process.env.DATABASE_URL ??= "postgresql://unused@localhost/unused";
Object.assign(process.env, { NODE_ENV: "test" });
const { migrateClickhouse } = await import("@/server/store/clickhouse/migrate.sql");
const { runCommand } = await import("@/server/store/clickhouse/client");
const { columnsOf } = await import("@/server/store/clickhouse/postgres-rows.sql");
const { createChdbConnection } = await import("chdb/connection");

await migrateClickhouse();
await runCommand("CREATE TABLE IF NOT EXISTS ad_events_null AS ad_events ENGINE = Null");
const chdb = createChdbConnection({ path: folder }).chdb;
const columns = columnsOf("ad_events");
const INSERTS = 4;
const perInsert = Math.ceil(Number(values.rows) / INSERTS);

/** One insert's rows as the shipper sends them: a session in four repeating, one event in ten a click. */
function chunk(offset: number): Buffer {
  let text = "";
  for (let i = 0; i < perInsert; i++) {
    const k = offset + i;
    const row: Record<string, string> = {
      event_id: randomUUID(),
      kind: k % 10 < 8 ? "impression" : k % 10 === 8 ? "view" : "click",
      status: k % 4 === 1 ? "duplicate" : "counted",
      session_id: `session-${k}`,
      user_id: "\\N",
      ad_id: `ad_${k % 200}`,
      campaign_id: `cmp_${k % 68}`,
      advertiser_id: `adv_${k % 64}`,
      publisher_id: `pub_${k % 3}`,
      request_id: randomUUID(),
      ad_type: "product",
      ad_size: "\\N",
      placement_name: "bench",
      context: "home",
      site: "shop.example",
      spend_micros: k % 4 === 1 ? "0" : "1200",
      user_agent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36",
      client_hash: "\\N",
      created_at: "2026-11-27 10:00:00.123",
      batch_id: String(1 + Math.floor(k / 2000)),
    };
    text += `${columns.map((column) => row[column]).join("\t")}\n`;
  }
  return Buffer.from(text);
}

const cpu = async (work: () => Promise<void>) => {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};

let offset = 0;
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const table of ["ad_events_null", "ad_events"]) {
    for (const way of ["inline", "file"] as const) {
      const chunks = Array.from({ length: INSERTS }, (_, n) => chunk(offset + n * perInsert));
      offset += INSERTS * perInsert;
      const seconds = await cpu(async () => {
        for (const [n, rows] of chunks.entries()) {
          const token = `insert-paths:${round}:${table}:${way}:${n}`;
          if (way === "inline") {
            await chdb.rawInsert({ table, columns, values: rows, format: "TabSeparated", settings: { insert_deduplication_token: token } });
          } else {
            const file = path.join(folder, `${token.replaceAll(":", "-")}.tsv`);
            writeFileSync(file, rows);
            await chdb.queryAsync(
              `INSERT INTO ${table} (${columns.join(", ")}) SETTINGS insert_deduplication_token = '${token}' SELECT * FROM file('${file}', 'TabSeparated')`,
            );
          }
        }
      });
      log(`round ${round}, ${table}, ${way}: ${(perInsert * INSERTS).toLocaleString("en")} rows in ${INSERTS} inserts, ${seconds.toFixed(2)} CPU s`);
    }
  }
}
rmSync(folder, { recursive: true, force: true });
