// One batch to one destination: its rows read once, in a fixed order, written file by file
// (Parquet for events, CSV for aggregates) to a temporary file and uploaded under the keys the
// run fixed before it started. A retry of the same run writes the same rows to the same keys.
// Keys of an earlier plan of the batch are deleted first; a batch whose rows no longer number
// what its keys were planned for stops before its marker and says so, to be planned again. An
// aggregate batch's folder also gets `_manifest.json`: the local day, its zone and the UTC moments
// it spans, the rows and the files.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { contentTypeOf, isEventType } from "@/server/core/export-types";
import { localDay, UTC } from "@/server/core/time-zones";
import type { ExportType } from "@/server/db/generated/enums";
import type { DestinationWithSecret } from "@/server/pipeline/export/destinations/destinations";
import { deleteObject, s3ClientFor, uploadEmpty, uploadFile, uploadText } from "@/server/pipeline/export/destinations/s3";
import { store } from "@/server/store";
import type { ReportScope } from "@/server/store/report-query";
import { type FileWriter, openFileWriter } from "./file-writer";
import { ROWS_PER_FILE } from "./schedule";

export interface RunToDeliver {
  id: string;
  type: ExportType;
  rangeStart: Date;
  rangeEnd: Date;
  /** An aggregate run's zone: its range is one local day of it (UTC when absent). */
  zone?: string;
  keys: string[];
  /** Rows the keys were planned for (set-aside rows left out). */
  plannedRows: number;
  /** Ids of set-aside rows: never delivered. */
  exclude: readonly string[];
  /** Keys of earlier plans, deleted (with their folders' _SUCCESS) before anything is uploaded. */
  staleKeys: readonly string[];
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
  allowPrivateEndpoints?: boolean;
  onFile?: (file: FileDelivered) => void | Promise<void>;
}

export type Delivery =
  | { status: "delivered"; rows: number; files: number; bytes: number }
  /** The rows no longer match the plan (committed late into the range, or gone): nothing was marked complete. */
  | { status: "changed"; reason: string };

const folderOf = (key: string) => key.slice(0, key.lastIndexOf("/") + 1);

/** The object beside an aggregate batch's files that says which local day they hold. */
export const MANIFEST_NAME = "_manifest.json";

/** What an aggregate batch's `_manifest.json` says. */
export interface AggregateManifest {
  type: ExportType;
  /** The local date the files hold (their `day` column), YYYY-MM-DD. */
  day: string;
  /** The IANA zone `day` is a local date of: the destination's account's. */
  time_zone: string;
  /** The UTC moments the day spans, [from, to), ISO 8601. */
  from: string;
  to: string;
  rows: number;
  files: string[];
}

export function aggregateManifest(run: Pick<RunToDeliver, "type" | "rangeStart" | "rangeEnd" | "zone" | "keys">, rows: number): AggregateManifest {
  const zone = run.zone ?? UTC;
  return {
    type: run.type,
    day: localDay(run.rangeStart, zone),
    time_zone: zone,
    from: run.rangeStart.toISOString(),
    to: run.rangeEnd.toISOString(),
    rows,
    files: run.keys,
  };
}

/** The stale keys and the `_SUCCESS` (and, for aggregates, `_manifest.json`) of each of their folders. */
export function staleObjects(keys: readonly string[], aggregate = false): string[] {
  const beside = aggregate ? ["_SUCCESS", MANIFEST_NAME] : ["_SUCCESS"];
  return [...new Set(keys.flatMap((key) => [key, ...beside.map((name) => `${folderOf(key)}${name}`)]))];
}

/**
 * Writes and uploads every file of a run, then its `_SUCCESS` marker (when the destination wants
 * one). `scope`: whose rows, resolved once for the run (batch-rows.ts). Throws on the first failure (a data error of a row included); the caller records it and
 * leaves the watermark alone.
 */
export async function deliverBatch(
  destination: DestinationWithSecret,
  scope: ReportScope,
  run: RunToDeliver,
  options: DeliveryOptions = {},
): Promise<Delivery> {
  const rowsPerFile = options.rowsPerFile ?? ROWS_PER_FILE;
  const source = store().exports.batch(run.type, scope, run, destination.aggregateLayout);
  const client = s3ClientFor(destination, { allowPrivateEndpoints: options.allowPrivateEndpoints });
  const dir = await mkdtemp(path.join(tmpdir(), "tally-export-"));
  const contentType = contentTypeOf(run.type);
  let rows = 0;
  let bytes = 0;
  let index = 0;
  let inFile = 0;
  let writer: FileWriter | null = null;
  let handle: Awaited<ReturnType<typeof open>> | null = null;
  const fileName = () => path.join(dir, `file-${index}`);

  const openFile = async () => {
    const file = await open(fileName(), "w");
    handle = file;
    return openFileWriter(source, async (chunk) => {
      await file.write(chunk);
    });
  };

  const finishFile = async () => {
    if (!writer) return;
    const size = await writer.close();
    writer = null;
    await handle?.close();
    handle = null;
    const key = run.keys[index]!;
    await uploadFile(client, destination.bucket, key, fileName(), size, contentType);
    await rm(fileName(), { force: true });
    bytes += size;
    await options.onFile?.({ destinationId: destination.id, type: run.type, key, index, files: run.keys.length, rows: inFile, bytes: size });
    index += 1;
    inFile = 0;
  };

  try {
    // Files of an earlier plan go first, so the bucket never holds a row under two keys.
    for (const key of staleObjects(run.staleKeys, !isEventType(run.type))) await deleteObject(client, destination.bucket, key);
    for await (const batch of source.read({ exclude: run.exclude })) {
      // More rows than planned: stop before writing any of them past the plan.
      if (rows + batch.length > run.plannedRows) return { status: "changed", reason: `more rows than the ${run.plannedRows} planned` };
      let at = 0;
      while (at < batch.length) {
        writer ??= await openFile();
        const take = Math.min(batch.length - at, rowsPerFile - inFile);
        await writer.write(batch.slice(at, at + take));
        at += take;
        inFile += take;
        rows += take;
        if (inFile === rowsPerFile) await finishFile();
      }
    }
    if (rows !== run.plannedRows) return { status: "changed", reason: `${rows} rows where ${run.plannedRows} were planned` };
    if (writer === null && index < run.keys.length) writer = await openFile(); // the header-only CSV of an empty day
    await finishFile();
    if (!isEventType(run.type) && run.keys.length > 0) {
      const manifest = `${JSON.stringify(aggregateManifest(run, rows), null, 2)}\n`;
      await uploadText(client, destination.bucket, `${folderOf(run.keys[0]!)}${MANIFEST_NAME}`, manifest, "application/json");
    }
    if (destination.writeSuccessMarker && run.keys.length > 0) await uploadEmpty(client, destination.bucket, `${folderOf(run.keys[0]!)}_SUCCESS`);
    return { status: "delivered", rows, files: index, bytes };
  } finally {
    if (writer) await (writer as FileWriter).close().catch(() => {});
    await (handle as Awaited<ReturnType<typeof open>> | null)?.close().catch(() => {});
    await rm(dir, { recursive: true, force: true });
    client.destroy();
  }
}
