import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import { type ParquetColumn, type ParquetValue, ParquetWriter } from "./parquet-writer";

const dir = mkdtempSync(path.join(tmpdir(), "tally-parquet-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function writeFile(name: string, columns: ParquetColumn[], rows: ParquetValue[][], rowGroupRows?: number, rowGroupBytes?: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  const writer = new ParquetWriter(columns, (chunk) => void chunks.push(chunk), { rowGroupRows, rowGroupBytes });
  // Rows arrive in uneven batches, as from a cursor.
  for (let i = 0; i < rows.length; i += 7) await writer.write(rows.slice(i, i + 7));
  await writer.close();
  const { rows: written, bytes } = writer.written;
  const file = Buffer.concat(chunks);
  expect(written).toBe(rows.length);
  expect(bytes).toBe(file.length);
  const target = path.join(dir, name);
  writeFileSync(target, file);
  return target;
}

async function duckdb() {
  const connection = await (await DuckDBInstance.create(":memory:")).connect();
  const all = async (sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();
  return { all };
}

const COLUMNS: ParquetColumn[] = [
  { name: "event_id", type: "string", nullable: false },
  { name: "user_id", type: "string", nullable: true },
  { name: "created_at", type: "timestamp", nullable: false },
  { name: "price", type: "double", nullable: true },
  { name: "quantity", type: "int64", nullable: false },
];

describe("ParquetWriter", () => {
  it("ends a row group at its byte bound as well as its rows, so long cells never make it hold more", async () => {
    const rows: ParquetValue[][] = Array.from({ length: 5_000 }, (_, i) => [`event-${i}-${"x".repeat(1_000)}`, null, new Date(0), null, i]);
    const file = await writeFile("long-cells.parquet", COLUMNS, rows, 131_072, 1024 * 1024);
    const { all } = await duckdb();
    const groups = await all(`SELECT row_group_id, max(row_group_num_rows) AS n FROM parquet_metadata('${file}') GROUP BY 1 ORDER BY 1`);
    // About 1 KB a row: a group ends at the first multiple of 1,024 rows past 1 MiB.
    expect(groups.map((g) => Number(g.n))).toEqual([1024, 1024, 1024, 1024, 904]);
    expect(await all(`SELECT count(*)::int AS n, sum(quantity)::int AS total FROM '${file}'`)).toEqual([{ n: 5_000, total: (4_999 * 5_000) / 2 }]);
  });

  it("writes a file DuckDB reads back with the same rows, types, nulls and Snappy pages", async () => {
    const rows: ParquetValue[][] = Array.from({ length: 100 }, (_, i) => [
      `event-${i}`,
      i % 3 === 0 ? null : `user-${i} — ünïcode ✓`,
      new Date(Date.UTC(2026, 10, 22, 10, 0, i, i)),
      i % 4 === 0 ? null : i * 1.25,
      // Counts as pg returns them: strings for bigint, numbers, bigints.
      i % 2 === 0 ? String(i * 1000) : i === 99 ? 9_007_199_254_740_993n : i,
    ]);
    const file = await writeFile("mixed.parquet", COLUMNS, rows, 16);
    const { all } = await duckdb();

    const schema = await all(`SELECT name, type, converted_type, repetition_type FROM parquet_schema('${file}') WHERE name <> 'schema'`);
    expect(schema).toEqual([
      { name: "event_id", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "REQUIRED" },
      { name: "user_id", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
      { name: "created_at", type: "INT64", converted_type: "TIMESTAMP_MILLIS", repetition_type: "REQUIRED" },
      { name: "price", type: "DOUBLE", converted_type: null, repetition_type: "OPTIONAL" },
      { name: "quantity", type: "INT64", converted_type: null, repetition_type: "REQUIRED" },
    ]);
    const described = await all(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${file}')`);
    expect(described).toEqual([
      { column_name: "event_id", column_type: "VARCHAR" },
      { column_name: "user_id", column_type: "VARCHAR" },
      { column_name: "created_at", column_type: "TIMESTAMP WITH TIME ZONE" },
      { column_name: "price", column_type: "DOUBLE" },
      { column_name: "quantity", column_type: "BIGINT" },
    ]);
    const codecs = await all(`SELECT DISTINCT compression FROM parquet_metadata('${file}')`);
    expect(codecs).toEqual([{ compression: "SNAPPY" }]);
    const groups = await all(`SELECT count(DISTINCT row_group_id)::int AS n FROM parquet_metadata('${file}')`);
    expect(groups).toEqual([{ n: 7 }]); // 100 rows in groups of 16

    const back = await all(`SELECT event_id, user_id, epoch_ms(created_at)::double AS created_ms, price, quantity::varchar AS quantity FROM '${file}'`);
    expect(back).toEqual(
      rows.map((row) => ({
        event_id: row[0],
        user_id: row[1],
        created_ms: (row[2] as Date).getTime(),
        price: row[3],
        quantity: String(row[4]),
      })),
    );
  });

  it("writes a valid file with no rows, and refuses a missing value in a required column", async () => {
    const file = await writeFile("empty.parquet", COLUMNS, []);
    const { all } = await duckdb();
    expect(await all(`SELECT count(*)::int AS n FROM '${file}'`)).toEqual([{ n: 0 }]);

    const writer = new ParquetWriter(COLUMNS, () => {});
    await expect(writer.write([["e", null, new Date(), 1, null]])).rejects.toThrow("column quantity is not nullable, but row 0 has no value");
    // A writer that refused a row writes nothing more: its row group is incomplete.
    await expect(writer.close()).rejects.toThrow("the Parquet writer is closed");
  });
});
