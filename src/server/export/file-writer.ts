// One export file being written: Parquet for events, CSV for aggregates, from the batch's
// database rows. A row the writer cannot encode (a cell its column cannot hold) is told apart
// from the sink failing (a full disk): the first is the row's fault and makes the batch look for
// its bad rows (poison.ts), the second fails the run like any outage.
import type { BatchRows } from "./batch-rows";
import { csvLine } from "./csv";
import { AGGREGATE_LAYOUTS, type AggregateType, type CsvValue, EVENT_LAYOUTS, isEventType } from "./layouts";
import { ParquetWriter } from "./parquet/parquet-writer";

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

export function openFileWriter(rows: BatchRows, sink: (chunk: Buffer) => Promise<void>): FileWriter {
  let bytes = 0;
  const sinkFailures = new WeakSet<object>();
  const guardedSink = async (chunk: Buffer) => {
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

  if (isEventType(rows.type)) {
    const parquet = new ParquetWriter(EVENT_LAYOUTS[rows.type].columns, guardedSink);
    return {
      write: async (raw) => {
        try {
          await parquet.write(raw.map(rows.cells) as never);
        } catch (error) {
          throw rowFault(error);
        }
      },
      close: async () => {
        await parquet.close();
        return bytes;
      },
    };
  }
  let headerWritten = false;
  const header = async () => {
    if (headerWritten) return;
    headerWritten = true;
    await guardedSink(Buffer.from(csvLine(AGGREGATE_LAYOUTS[rows.type as AggregateType].columns), "utf8"));
  };
  return {
    write: async (raw) => {
      await header();
      let text: string;
      try {
        text = raw.map((row) => csvLine(rows.cells(row) as CsvValue[])).join("");
      } catch (error) {
        throw rowFault(error);
      }
      await guardedSink(Buffer.from(text, "utf8"));
    },
    close: async () => {
      await header(); // a day with nothing is a file with the header only
      return bytes;
    },
  };
}
