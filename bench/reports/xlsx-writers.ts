// `npm run bench:xlsx -- [--rows 100000]`: Tally's XLSX writer (src/server/reports/xlsx.ts)
// against exceljs's streaming WorkbookWriter, side by side on the same rows: the 22 columns of
// the detailed ad report (text, numbers, a date), written to a file in pages of 1,000. Each writer
// runs in its own process, so peak resident memory (VmHWM) is its own. Prints time, peak memory
// and file size of each, and the ratios.
import { spawnSync } from "node:child_process";
import { createWriteStream, readFileSync, rmSync, statSync } from "node:fs";
import { PassThrough, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import ExcelJS from "exceljs";
import { type XlsxColumn, xlsxStream } from "@/server/reports/xlsx";

const { values } = parseArgs({ options: { rows: { type: "string", default: "100000" }, writer: { type: "string" } } });
const ROWS = Number(values.rows);

type Row = Record<string, string | number | null>;
const TEXT = ["level", "ad_id", "name", "ad_type", "campaign_id", "campaign", "advertiser_id", "network_id", "publisher_id", "publisher"];
const NUMBERS = [
  "impressions_total",
  "views_total",
  "clicks_total",
  "ctr",
  "ad_revenue",
  "conversions_total",
  "conversion_rate",
  "sales_revenue",
  "roas",
  "duplicate_events",
  "bot_events",
];
const COLUMNS: XlsxColumn<Row>[] = [
  { header: "day", key: "day", type: "date" },
  ...TEXT.map((key) => ({ header: key, key, type: "text" as const })),
  ...NUMBERS.map((key) => ({ header: key, key, type: "number" as const })),
];

async function* pages(): AsyncIterable<Row[]> {
  for (let start = 0; start < ROWS; start += 1000) {
    const page: Row[] = [];
    for (let n = start; n < Math.min(ROWS, start + 1000); n += 1) {
      const row: Row = { day: `2026-11-${String(1 + (n % 30)).padStart(2, "0")}` };
      for (const key of TEXT) row[key] = key === "network_id" && n % 3 ? null : `${key}-${n % 977}`;
      for (const [i, key] of NUMBERS.entries()) row[key] = i % 3 === 0 ? (n * (i + 1)) % 5000 : ((n % 1000) * (i + 1)) / 7;
      page.push(row);
    }
    yield page;
  }
}

/** The writer Tally used before: exceljs's streaming WorkbookWriter, committing row by row. */
function exceljsStream(): Readable {
  const output = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet("Ads by day", { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = COLUMNS.map((c) => ({ header: c.header, key: c.key, width: 16, style: c.type === "date" ? { numFmt: "yyyy-mm-dd" } : {} }));
  sheet.getRow(1).font = { bold: true };
  void (async () => {
    for await (const page of pages()) {
      for (const row of page) sheet.addRow({ ...row, day: new Date(`${row.day as string}T00:00:00Z`) }).commit();
    }
    sheet.commit();
    await workbook.commit();
  })().catch((error: unknown) => output.destroy(error as Error));
  return output;
}

async function child(writer: string): Promise<void> {
  const file = `bench/results/xlsx-${writer}.xlsx`;
  const started = performance.now();
  const source =
    writer === "exceljs" ? exceljsStream() : Readable.fromWeb(xlsxStream("Ads by day", COLUMNS, pages()) as import("node:stream/web").ReadableStream);
  await pipeline(source, createWriteStream(file));
  const ms = performance.now() - started;
  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0);
  const bytes = statSync(file).size;
  // Both files must hold every row: counted with exceljs's streaming reader.
  let rows = -1;
  for await (const sheet of new ExcelJS.stream.xlsx.WorkbookReader(file, {
    worksheets: "emit",
    sharedStrings: "cache",
    styles: "ignore",
    hyperlinks: "ignore",
  })) {
    for await (const _ of sheet as AsyncIterable<unknown>) rows += 1;
  }
  rmSync(file, { force: true });
  console.log(JSON.stringify({ writer, rows, seconds: Math.round(ms) / 1000, peak_rss_mb: Math.round(peakKb / 1024), bytes }));
}

if (values.writer) {
  await child(values.writer);
} else {
  const run = (writer: string) => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "bench/reports/xlsx-writers.ts", "--writer", writer, "--rows", String(ROWS)], {
      encoding: "utf8",
    });
    if (result.status !== 0) throw new Error(`${writer}: ${result.stderr}`);
    return JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { writer: string; rows: number; seconds: number; peak_rss_mb: number; bytes: number };
  };
  const exceljs = run("exceljs");
  const tally = run("tally");
  console.log(
    JSON.stringify(
      {
        rows: ROWS,
        columns: COLUMNS.length,
        exceljs,
        tally,
        speedup: Math.round((exceljs.seconds / tally.seconds) * 10) / 10,
        memory_ratio: Math.round((tally.peak_rss_mb / exceljs.peak_rss_mb) * 100) / 100,
      },
      null,
      2,
    ),
  );
}
