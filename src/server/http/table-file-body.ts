// A table file's body, read under its limits as it arrives: 413 on a declared length past the
// byte limit before anything is read, and 413 as soon as the bytes or the rows' cells
// (formats/table-cells.ts) pass theirs, so a table too large is never held whole, parsed or written.
import { countDashboardRefusal } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { TableCellCounter } from "@/server/formats/table-cells";
import { bodyTooLarge } from "./read-json-body";

export interface TableBodyLimits {
  maxBytes: number;
  maxCells: number;
  /** When the whole body must have arrived (ms since the epoch): a body sent a byte at a time holds its slot no longer. */
  deadline: number;
}

function tooManyBytes(maxBytes: number): TallyError {
  countDashboardRefusal("table_file", "too_large");
  return bodyTooLarge(maxBytes);
}

/** 413 for a body that says it is longer than the limit; nothing is read. */
export function assertDeclaredLength(request: Request, maxBytes: number): void {
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) throw tooManyBytes(maxBytes);
}

function tooManyCells(maxCells: number): TallyError {
  countDashboardRefusal("table_file", "too_large");
  return new TallyError("payload_too_large", `the table has more than ${maxCells} cells (rows × columns); download fewer rows or columns at a time`);
}

const READ_TIMED_OUT = Symbol("read timed out");

/** The next chunk, or READ_TIMED_OUT once `deadline` has passed. */
async function readBefore(reader: ReadableStreamDefaultReader<Uint8Array>, deadline: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof READ_TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(READ_TIMED_OUT), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([reader.read(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The body's bytes, counted and refused as they arrive (the reader is cancelled at the first limit passed). */
export async function readTableBody(request: Request, limits: TableBodyLimits): Promise<Uint8Array> {
  assertDeclaredLength(request, limits.maxBytes);
  if (!request.body) return new Uint8Array(0);
  const started = Date.now();
  const reader = request.body.getReader();
  const counter = new TableCellCounter();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await readBefore(reader, limits.deadline);
    if (next === READ_TIMED_OUT) {
      await reader.cancel().catch(() => {});
      throw new TallyError("bad_request", `the body did not arrive within ${Math.round((limits.deadline - started) / 100) / 10} s`);
    }
    const { done, value } = next;
    if (done) break;
    size += value.byteLength;
    counter.feed(value);
    const problem =
      size > limits.maxBytes
        ? tooManyBytes(limits.maxBytes)
        : counter.cells > limits.maxCells
          ? tooManyCells(limits.maxCells)
          : counter.tooDeep
            ? new TallyError("bad_request", "the body nests deeper than a table")
            : null;
    if (problem) {
      await reader.cancel().catch(() => {});
      throw problem;
    }
    chunks.push(value);
  }
  // Buffer.concat's copy is the one whole body held; the chunks go with this frame.
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}
