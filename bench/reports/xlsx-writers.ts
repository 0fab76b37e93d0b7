// `npm run bench:xlsx -- [--rows 100000] [--runs 3] [--writers exceljs,fflate,hand-made,fflate-deflate]`:
// Tally's XLSX writer (src/server/formats/xlsx.ts) on its own ZIP writer ("fflate": fflate's
// streaming Zip with node:zlib's deflate, zip.ts), on the hand-made ZIP it replaced and on
// fflate's own deflate (zip-alternatives.ts), and exceljs's streaming WorkbookWriter, side by side
// on the same rows: the 22 columns of the detailed ad report (text, numbers, a date), written to a
// file in pages of 1,000. Each run of a writer is its own process, so peak resident memory
// (VmHWM) is its own; the writers take turns, run after run. Prints every run, each writer's
// median time and peak, and fflate against the hand-made ZIP (kept while within 10%).
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { PassThrough, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseArgs } from "node:util";
import ExcelJS from "exceljs";
import type { ByteSink } from "@/server/formats/table-writer";
import { type XlsxColumn, xlsxStream } from "@/server/formats/xlsx";
import type { ZipWriter } from "@/server/formats/zip";
import { fflateDeflateZip, handMadeZip } from "./zip-alternatives";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    runs: { type: "string", default: "3" },
    writers: { type: "string", default: "exceljs,fflate,hand-made" },
    writer: { type: "string" },
  },
});
const ROWS = Number(values.rows);
const RUNS = Number(values.runs);
const WRITERS = ["exceljs", "fflate", "hand-made", "fflate-deflate"];

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
  { header: "day", key: "day", kind: "date" },
  ...TEXT.map((key) => ({ header: key, key, kind: "text" as const })),
  ...NUMBERS.map((key) => ({ header: key, key, kind: "number" as const })),
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
  sheet.columns = COLUMNS.map((c) => ({ header: c.header, key: c.key, width: 16, style: c.kind === "date" ? { numFmt: "yyyy-mm-dd" } : {} }));
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

/** The archives Tally's XLSX writer is measured on besides its own (zip.ts, "fflate"). */
const ZIPS: Record<string, (sink: ByteSink) => ZipWriter> = { "hand-made": (sink) => handMadeZip(sink), "fflate-deflate": fflateDeflateZip };

function tallyStream(writer: string): Readable {
  const stream = xlsxStream("Ads by day", COLUMNS, pages(), ZIPS[writer] ? { zip: ZIPS[writer] } : {});
  return Readable.fromWeb(stream as import("node:stream/web").ReadableStream);
}

async function child(writer: string): Promise<void> {
  mkdirSync("bench/results", { recursive: true });
  const file = `bench/results/xlsx-${writer}.xlsx`;
  const started = performance.now();
  await pipeline(writer === "exceljs" ? exceljsStream() : tallyStream(writer), createWriteStream(file));
  const ms = performance.now() - started;
  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0);
  const bytes = statSync(file).size;
  // Every file must hold every row: counted with exceljs's streaming reader.
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

interface Run {
  writer: string;
  rows: number;
  seconds: number;
  peak_rss_mb: number;
  bytes: number;
}

function run(writer: string): Run {
  const result = spawnSync(process.execPath, ["--import", "tsx", "bench/reports/xlsx-writers.ts", "--writer", writer, "--rows", String(ROWS)], {
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`${writer}: ${result.stderr}`);
  const measured = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as Run;
  if (measured.rows !== ROWS) throw new Error(`${writer}: the file read back with ${measured.rows} rows of ${ROWS}`);
  return measured;
}

const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

if (values.writer) {
  await child(values.writer);
} else {
  const writers = values.writers.split(",").filter((w) => WRITERS.includes(w));
  const runs: Run[] = [];
  for (let i = 1; i <= RUNS; i += 1) {
    for (const writer of writers) {
      const measured = run(writer);
      runs.push(measured);
      console.log(
        `bench: run ${i} ${writer}: ${measured.seconds.toFixed(2)} s, peak ${measured.peak_rss_mb} MB, ${(measured.bytes / 1_000_000).toFixed(1)} MB`,
      );
    }
  }
  const summary = Object.fromEntries(
    writers.map((writer) => {
      const mine = runs.filter((r) => r.writer === writer);
      return [writer, { seconds: median(mine.map((r) => r.seconds)), peak_rss_mb: median(mine.map((r) => r.peak_rss_mb)), bytes: mine[0]!.bytes }];
    }),
  );
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  const zip =
    summary.fflate && summary["hand-made"]
      ? {
          time: ratio(summary.fflate.seconds, summary["hand-made"].seconds),
          memory: ratio(summary.fflate.peak_rss_mb, summary["hand-made"].peak_rss_mb),
          // docs/decisions/0014-zip-from-fflate.md: the library stays unless it loses by more than 10% in time or memory.
          keep_fflate: summary.fflate.seconds <= summary["hand-made"].seconds * 1.1 && summary.fflate.peak_rss_mb <= summary["hand-made"].peak_rss_mb * 1.1,
        }
      : undefined;
  console.log(JSON.stringify({ rows: ROWS, columns: COLUMNS.length, runs: RUNS, medians: summary, fflate_vs_hand_made: zip }, null, 2));
}
