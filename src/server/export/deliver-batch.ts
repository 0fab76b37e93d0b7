// One batch to one destination: its rows read once, in a fixed order, written file by file
// (Parquet for events, CSV for aggregates) to a temporary file and uploaded under the keys the
// run fixed before it started. A retry of the same run writes the same rows to the same keys.
import { mkdtemp, open, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ExportType } from "@/server/db/generated/enums";
import { cursorBatches } from "@/server/db/cursor";
import { pgPool } from "@/server/db/pg-pool";
import { accountCaller, reportScope, type ReportScope } from "@/server/reports/report-scope";
import { csvLine } from "./csv";
import type { DestinationWithSecret } from "./destinations";
import { AGGREGATE_LAYOUTS, EVENT_LAYOUTS, isEventType, type AggregateType, type CsvValue, type EventType } from "./layouts";
import { ParquetWriter } from "./parquet/parquet-writer";
import { s3ClientFor, uploadEmpty, uploadFile } from "./s3";

/** Files are split at this many rows (issue: 1,000,000), so any consumer can read one whole. */
export const ROWS_PER_FILE = 1_000_000;
const FETCH_ROWS = 5_000;

export interface RunToDeliver {
  id: string;
  type: ExportType;
  rangeStart: Date;
  rangeEnd: Date;
  keys: string[];
}

export interface FileDelivered {
  destinationId: string;
  type: ExportType;
  key: string;
  index: number;
  files: number;
  rows: number;
  bytes: number;
}

export interface DeliveryOptions {
  rowsPerFile?: number;
  onFile?: (file: FileDelivered) => void | Promise<void>;
}

export const extensionOf = (type: ExportType) => (isEventType(type) ? ".snappy.parquet" : ".csv");

export async function scopeOfAccount(accountId: string): Promise<ReportScope> {
  const caller = await accountCaller(accountId);
  if (!caller) throw new Error(`account ${accountId} no longer exists`);
  return reportScope(caller);
}

interface Source {
  /** Count for the key plan. */
  count(): Promise<number>;
  /** Rows in a fixed order, as arrays of cells in the file's column order. */
  rows(): AsyncIterable<unknown[][]>;
}

function eventSource(type: EventType, scope: ReportScope, run: RunToDeliver): Source {
  const layout = EVENT_LAYOUTS[type];
  const values = [run.rangeStart, run.rangeEnd, scope.advertiserId, scope.publisherIds];
  return {
    count: async () => (await pgPool().query<{ rows: number }>(layout.count(scope), values)).rows[0]!.rows,
    rows: () => cursorBatches<unknown[]>(layout.select(scope), values, { batch: FETCH_ROWS, rowMode: "array" }),
  };
}

function aggregateSource(type: AggregateType, scope: ReportScope, run: RunToDeliver): Source {
  const layout = AGGREGATE_LAYOUTS[type];
  const day = run.rangeStart.toISOString().slice(0, 10);
  const statement = layout.statement(scope, day);
  const values = statement.values(null, 0);
  return {
    count: async () => (await pgPool().query<{ rows: number }>(`SELECT count(*)::int AS rows FROM (${statement.sql}) report`, values)).rows[0]!.rows,
    rows: async function* () {
      for await (const rows of cursorBatches<object>(statement.sql, values, { batch: FETCH_ROWS })) {
        yield rows.map((raw) => {
          const row = statement.row(raw);
          return layout.columns.map((name): CsvValue => (name === "day" ? day : (row[name] ?? null)));
        });
      }
    },
  };
}

export function sourceOf(type: ExportType, scope: ReportScope, run: RunToDeliver): Source {
  return isEventType(type) ? eventSource(type, scope, run) : aggregateSource(type as AggregateType, scope, run);
}

/** How many files a batch of `rows` rows makes: events none when empty, aggregates always one (a header-only CSV says the day had nothing). */
export const filesFor = (type: ExportType, rows: number, rowsPerFile = ROWS_PER_FILE) =>
  isEventType(type) ? Math.ceil(rows / rowsPerFile) : Math.max(1, Math.ceil(rows / rowsPerFile));

interface FileWriter {
  write(rows: unknown[][]): Promise<void>;
  close(): Promise<number>;
}

async function openFileWriter(type: ExportType, file: string): Promise<FileWriter> {
  const handle = await open(file, "w");
  const sink = async (chunk: Buffer) => {
    await handle.write(chunk);
  };
  if (isEventType(type)) {
    const parquet = new ParquetWriter(EVENT_LAYOUTS[type].columns, sink);
    return {
      write: (rows) => parquet.write(rows as never),
      close: async () => {
        const { bytes } = await parquet.close();
        await handle.close();
        return bytes;
      },
    };
  }
  await sink(Buffer.from(csvLine(AGGREGATE_LAYOUTS[type as AggregateType].columns), "utf8"));
  return {
    write: async (rows) => {
      await sink(Buffer.from(rows.map((row) => csvLine(row as CsvValue[])).join(""), "utf8"));
    },
    close: async () => {
      await handle.close();
      return (await stat(file)).size;
    },
  };
}

/**
 * Writes and uploads every file of a run, then its `_SUCCESS` marker (when the destination wants
 * one). Throws on the first failure; the caller records it and leaves the watermark alone.
 */
export async function deliverBatch(destination: DestinationWithSecret, run: RunToDeliver, options: DeliveryOptions = {}): Promise<{ rows: number; files: number; bytes: number }> {
  const rowsPerFile = options.rowsPerFile ?? ROWS_PER_FILE;
  const scope = await scopeOfAccount(destination.accountId);
  const source = sourceOf(run.type, scope, run);
  const client = s3ClientFor(destination);
  const dir = await mkdtemp(path.join(tmpdir(), "tally-export-"));
  const contentType = isEventType(run.type) ? "application/vnd.apache.parquet" : "text/csv; charset=utf-8";
  let rows = 0;
  let bytes = 0;
  let index = 0;
  let inFile = 0;
  let writer: FileWriter | null = null;
  const fileName = () => path.join(dir, `file-${index}`);

  const finishFile = async () => {
    if (!writer) return;
    const size = await writer.close();
    writer = null;
    const key = run.keys[index];
    if (key === undefined) throw new Error(`the batch now has more rows than when it was planned (${run.keys.length} files): it will be planned again`);
    await uploadFile(client, destination.bucket, key, fileName(), size, contentType);
    await rm(fileName(), { force: true });
    bytes += size;
    await options.onFile?.({ destinationId: destination.id, type: run.type, key, index, files: run.keys.length, rows: inFile, bytes: size });
    index += 1;
    inFile = 0;
  };

  try {
    for await (const batch of source.rows()) {
      let at = 0;
      while (at < batch.length) {
        writer ??= await openFileWriter(run.type, fileName());
        const take = Math.min(batch.length - at, rowsPerFile - inFile);
        await writer.write(batch.slice(at, at + take));
        at += take;
        inFile += take;
        rows += take;
        if (inFile === rowsPerFile) await finishFile();
      }
    }
    if (writer === null && index < run.keys.length) writer = await openFileWriter(run.type, fileName()); // the header-only CSV of an empty day
    await finishFile();
    if (index !== run.keys.length) throw new Error(`the batch now has fewer rows than when it was planned (${index} of ${run.keys.length} files)`);
    if (destination.writeSuccessMarker && run.keys.length > 0) {
      await uploadEmpty(client, destination.bucket, `${run.keys[0]!.slice(0, run.keys[0]!.lastIndexOf("/") + 1)}_SUCCESS`);
    }
    return { rows, files: index, bytes };
  } finally {
    if (writer) await (writer as FileWriter).close().catch(() => {});
    await rm(dir, { recursive: true, force: true });
    client.destroy();
  }
}
