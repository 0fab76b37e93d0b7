// `npm run bench:export -- [--rows 1000000]`: Tally's Parquet writer on layout A rows (the
// ad_events export) against DuckDB writing the same rows to Snappy Parquet, in the same run.
//   - Tally: a child process makes the rows in batches of 5,000 (as the export's cursor hands
//     them over) and writes them with ParquetWriter to a file. Its time minus the time of making
//     the same rows without writing them is the writer's; its peak resident memory (VmHWM) is the
//     whole process's, rows included.
//   - DuckDB: the rows Tally wrote are loaded into a DuckDB table (not timed), then
//     `COPY ... TO ... (FORMAT parquet, COMPRESSION snappy)` is timed, with DuckDB's default threads.
// `--writers` also runs parquetjs-lite and hyparquet-writer on the same rows (each in its own
// process): the side-by-side behind docs/decisions/0015-parquet-writer.md. parquetjs-lite takes minutes for 1,000,000.
// Prints JSON; exits 1 when Tally is slower than a third of DuckDB's rows per second or peaks
// above 500 MB.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { type ParquetValue, ParquetWriter } from "@/server/formats/parquet/parquet-writer";
import { EVENT_COLUMNS } from "@/server/store/export-rows";

const { values } = parseArgs({
  options: { rows: { type: "string", default: "1000000" }, writer: { type: "string" }, writers: { type: "boolean", default: false } },
});
const ROWS = Number(values.rows);
const BATCH = 5_000;
const OUT = path.resolve("bench/results/export");
const TARGET = { ratio: 3, peakMb: 500 };
const COLUMNS = EVENT_COLUMNS.ad_events;
const START = Date.UTC(2026, 10, 1);

/** Layout A rows, deterministic: realistic ids and a few distinct values per low-cardinality column. */
function* batches(): Generator<ParquetValue[][]> {
  const placements = ["search-sponsored", "home-hero", "category-top", "product-carousel"];
  const contexts = ["search", "home", "category", "product"];
  for (let start = 0; start < ROWS; start += BATCH) {
    const batch: ParquetValue[][] = [];
    for (let i = start; i < Math.min(ROWS, start + BATCH); i += 1) {
      const hex = i.toString(16).padStart(12, "0");
      batch.push([
        `7d3f9a2c-4b1e-4c8a-9f2d-${hex}`,
        `sess-${(i * 7919) % 250_000}`,
        i % 3 === 0 ? null : `user-${(i * 104_729) % 120_000}`,
        `ad_${(i % 1500).toString(36).padStart(6, "0")}`,
        `cmp_${(i % 150).toString(36).padStart(5, "0")}`,
        `req-${hex}`,
        i % 5 === 0 ? "banner" : "product",
        placements[i % 4]!,
        contexts[i % 4]!,
        new Date(START + i * 2_592),
        i % 7 === 0 ? "Demo Market App" : "demomarket.com",
      ]);
    }
    yield batch;
  }
}

const peakMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;

async function child(writer: string): Promise<void> {
  const file = path.join(OUT, `${writer}.parquet`);
  const started = performance.now();
  if (writer === "generate") {
    let n = 0;
    for (const batch of batches()) n += batch.length;
    if (n !== ROWS) throw new Error("row count");
  } else if (writer === "tally") {
    const handle = await open(file, "w");
    const parquet = new ParquetWriter(COLUMNS, async (chunk) => {
      await handle.write(chunk);
    });
    for (const batch of batches()) await parquet.write(batch);
    await parquet.close();
    await handle.close();
  } else if (writer === "parquetjs-lite") {
    // @ts-expect-error parquetjs-lite ships no types
    const parquet = (await import("parquetjs-lite")).default;
    const fields = Object.fromEntries(
      COLUMNS.map((c) => [c.name, { type: c.type === "timestamp" ? "TIMESTAMP_MILLIS" : "UTF8", optional: c.nullable, compression: "SNAPPY" }]),
    );
    const out = await parquet.ParquetWriter.openFile(new parquet.ParquetSchema(fields), file, { rowGroupSize: 65_536 });
    for (const batch of batches()) {
      for (const row of batch) await out.appendRow(Object.fromEntries(COLUMNS.map((c, i) => [c.name, row[i] ?? undefined])));
    }
    await out.close();
  } else if (writer === "hyparquet-writer") {
    const { ParquetWriter: HyWriter } = await import("hyparquet-writer");
    const { fileWriter } = (await import("hyparquet-writer/src/node.js" as string)) as { fileWriter: (f: string) => unknown };
    const schema = [
      { name: "root", num_children: COLUMNS.length },
      ...COLUMNS.map((c) =>
        c.type === "timestamp"
          ? { name: c.name, type: "INT64", converted_type: "TIMESTAMP_MILLIS", repetition_type: "REQUIRED" }
          : { name: c.name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: c.nullable ? "OPTIONAL" : "REQUIRED" },
      ),
    ];
    const out = new HyWriter({ writer: fileWriter(file) as never, schema: schema as never, statistics: false });
    let columns: ParquetValue[][] = COLUMNS.map(() => []);
    const flush = async () => {
      await out.write({ columnData: COLUMNS.map((c, i) => ({ name: c.name, data: columns[i] as never })), rowGroupSize: 65_536 });
      columns = COLUMNS.map(() => []);
    };
    for (const batch of batches()) {
      for (const row of batch) for (const [i, value] of row.entries()) columns[i]!.push(value);
      if (columns[0]!.length >= 65_536) await flush();
    }
    if (columns[0]!.length > 0) await flush();
    out.finish();
  } else throw new Error(`unknown writer ${writer}`);
  const seconds = (performance.now() - started) / 1000;
  console.log(JSON.stringify({ writer, seconds, peak_mb: peakMb(), bytes: writer === "generate" ? 0 : statSync(file).size }));
}

function runChild(writer: string): { writer: string; seconds: number; peak_mb: number; bytes: number } {
  const result = spawnSync(process.execPath, ["--import", "tsx", "bench/export/run.ts", "--rows", String(ROWS), "--writer", writer], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (result.status !== 0) throw new Error(`${writer} failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!);
}

async function duckdbCopy(source: string): Promise<{ seconds: number; rows: number; bytes: number; codec: string }> {
  const { DuckDBInstance } = await import("@duckdb/node-api");
  const connection = await (await DuckDBInstance.create(":memory:")).connect();
  await connection.run(`CREATE TABLE events AS SELECT * FROM read_parquet('${source}')`);
  const target = path.join(OUT, "duckdb.parquet");
  const started = performance.now();
  await connection.run(`COPY events TO '${target}' (FORMAT parquet, COMPRESSION snappy)`);
  const seconds = (performance.now() - started) / 1000;
  const [check] = (
    await connection.runAndReadAll(
      `SELECT count(*)::int AS rows, (SELECT min(compression) FROM parquet_metadata('${source}')) AS codec FROM read_parquet('${source}')`,
    )
  ).getRowObjectsJS();
  return { seconds, rows: check!.rows as number, bytes: statSync(target).size, codec: check!.codec as string };
}

async function main(): Promise<number> {
  mkdirSync(OUT, { recursive: true });
  const log = (line: string) => console.log(`bench: ${line}`);
  log(`${ROWS.toLocaleString("en")} layout A rows (ad_events), ${COLUMNS.length} columns`);
  const generate = runChild("generate");
  log(`making the rows alone: ${generate.seconds.toFixed(2)} s`);
  const tally = runChild("tally");
  const tallySeconds = Math.max(0.001, tally.seconds - generate.seconds);
  log(
    `Tally: ${tally.seconds.toFixed(2)} s with the rows, ${tallySeconds.toFixed(2)} s writing; peak ${Math.round(tally.peak_mb)} MB; ${(tally.bytes / 1_048_576).toFixed(1)} MB`,
  );
  const duck = await duckdbCopy(path.join(OUT, "tally.parquet"));
  if (duck.rows !== ROWS || duck.codec !== "SNAPPY") throw new Error(`Tally's file read back as ${duck.rows} rows, codec ${duck.codec}`);
  log(
    `DuckDB COPY: ${duck.seconds.toFixed(2)} s; ${(duck.bytes / 1_048_576).toFixed(1)} MB (read Tally's file back: ${duck.rows.toLocaleString("en")} rows, ${duck.codec})`,
  );
  const others = [];
  if (values.writers) {
    for (const writer of ["hyparquet-writer", "parquetjs-lite"]) {
      const result = runChild(writer);
      const seconds = Math.max(0.001, result.seconds - generate.seconds);
      log(`${writer}: ${seconds.toFixed(2)} s writing; peak ${Math.round(result.peak_mb)} MB; ${(result.bytes / 1_048_576).toFixed(1)} MB`);
      others.push({
        writer,
        seconds,
        rows_per_second: Math.round(ROWS / seconds),
        peak_mb: Math.round(result.peak_mb),
        bytes: result.bytes,
        vs_duckdb: +(duck.seconds / seconds).toFixed(3),
      });
    }
  }
  const tallyRate = ROWS / tallySeconds;
  const duckRate = ROWS / duck.seconds;
  const result = {
    rows: ROWS,
    tally: { seconds: +tallySeconds.toFixed(2), rows_per_second: Math.round(tallyRate), peak_mb: Math.round(tally.peak_mb), bytes: tally.bytes },
    duckdb: { seconds: +duck.seconds.toFixed(2), rows_per_second: Math.round(duckRate), bytes: duck.bytes },
    tally_vs_duckdb: +(tallyRate / duckRate).toFixed(3),
    others,
    targets: { within: `${TARGET.ratio}× of DuckDB's rows per second`, peakMb: TARGET.peakMb },
    met: tallyRate * TARGET.ratio >= duckRate && tally.peak_mb < TARGET.peakMb,
  };
  console.log(JSON.stringify(result, null, 2));
  rmSync(OUT, { recursive: true, force: true });
  return result.met ? 0 : 1;
}

if (values.writer) await child(values.writer);
else process.exit(await main());
