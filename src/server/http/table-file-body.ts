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

/** The body's bytes, counted and refused as they arrive (the reader is cancelled at the first limit passed). */
export async function readTableBody(request: Request, limits: TableBodyLimits): Promise<Uint8Array> {
  assertDeclaredLength(request, limits.maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const counter = new TableCellCounter();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
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
