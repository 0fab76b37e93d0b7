// One export file being written: Parquet for events, CSV for aggregates (src/server/formats/), from
// the batch's database rows. A row the writer cannot encode (a cell its column cannot hold) is told
// apart from the sink failing (a full disk): the first is the row's fault and makes the batch look
// for its bad rows (poison.ts), the second fails the run like any outage.

import { type AggregateType, isEventType } from "@/server/core/export-types";
import { csvWriter } from "@/server/formats/csv";
import { ParquetWriter } from "@/server/formats/parquet/parquet-writer";
import type { TableWriter } from "@/server/formats/table-writer";
import { AGGREGATE_COLUMNS, EVENT_COLUMNS, type ExportBatch } from "@/server/store/export-rows";

// Errors of rows the writers could not encode, marked rather than wrapped: the message stays the
// writer's own (it becomes the set-aside row's reason) and TallyError stays the one error type.
const unwritable = new WeakSet<object>();

/** Whether `error` came from a row the writers cannot encode. */
export const isUnwritableRow = (error: unknown): boolean => typeof error === "object" && error !== null && unwritable.has(error);

export interface FileWriter {
  /** Encodes database rows (the batch's `cells` make them the file's cells). */
  write(raw: unknown[]): Promise<void>;
  /** Ends the file; returns its size in bytes. */
  close(): Promise<number>;
}

export function openFileWriter(rows: ExportBatch, sink: (chunk: Uint8Array) => Promise<void>): FileWriter {
  let bytes = 0;
  const sinkFailures = new WeakSet<object>();
  const guardedSink = async (chunk: Uint8Array) => {
    try {
      await sink(chunk);
      bytes += chunk.length;
    } catch (error) {
      if (typeof error === "object" && error !== null) sinkFailures.add(error);
      throw error;
    }
  };
  // Whatever failed while encoding that was not the sink: the row's own fault.
  const rowFault = (error: unknown) => {
    if (typeof error === "object" && error !== null && !sinkFailures.has(error)) unwritable.add(error);
    return error;
  };
  const file: TableWriter<readonly unknown[]> = isEventType(rows.type)
    ? new ParquetWriter(EVENT_COLUMNS[rows.type], guardedSink)
    : csvWriter([...(rows.columns ?? AGGREGATE_COLUMNS[rows.type as AggregateType])], guardedSink);
  return {
    write: async (raw) => {
      try {
        await file.write(raw.map(rows.cells));
      } catch (error) {
        throw rowFault(error);
      }
    },
    close: async () => {
      // A day with nothing is a CSV with the header only.
      await file.close();
      return bytes;
    },
  };
}
