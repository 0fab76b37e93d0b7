// Tally's Parquet writer: flat schemas of strings, UTC millisecond timestamps, doubles and
// int64s, PLAIN-encoded, one Snappy-compressed data page per column and row group. Cells are
// encoded into per-column buffers as rows arrive, and each finished row group goes to `sink`, so
// memory holds one row group's bytes however many rows a file has.
// Written for the export rather than taken from parquetjs-lite or hyparquet-writer: on the same
// event rows both take many times as long as this writer, which stays within reach of DuckDB's
// (npm run bench:export -- --writers; bench/results.md; docs/decisions/0015-parquet-writer.md). The tests read its files
// with DuckDB, a reader Tally did not write. The footer and page headers are in metadata.ts.
import { compressSync } from "snappy";
import type { ByteSink, TableWriter } from "../table-writer";
import { type ColumnChunkMeta, fileFooter, MAGIC, pageHeader, type RowGroupMeta } from "./metadata";

export type ParquetType = "string" | "timestamp" | "double" | "int64";

export interface ParquetColumn {
  name: string;
  type: ParquetType;
  /** OPTIONAL in the schema (nulls allowed); REQUIRED otherwise. */
  nullable: boolean;
}

/** A cell: strings for `string`; a Date or epoch milliseconds for `timestamp`; numbers (or numeric strings, bigints) otherwise. */
export type ParquetValue = string | number | bigint | Date | null | undefined;

export interface ParquetWriterOptions {
  /** Rows per row group (default 131,072): a writer holds one row group's encoded bytes. */
  rowGroupRows?: number;
  /**
   * Encoded bytes past which a row group ends before its rows are all in (default 64 MiB, looked
   * at every 1,024 rows): rows of long ids never make a writer hold more than about that.
   */
  rowGroupBytes?: number;
  createdBy?: string;
}

const TWO_32 = 4_294_967_296;

/** One column's encoded values of the current row group, and which rows have a value. */
class ColumnBuffer {
  bytes = Buffer.allocUnsafe(1 << 16);
  at = 0;
  present: Uint8Array;
  nulls = 0;

  constructor(rows: number) {
    this.present = new Uint8Array(rows);
  }

  ensure(extra: number): void {
    if (this.at + extra <= this.bytes.length) return;
    let next = this.bytes.length * 2;
    while (next < this.at + extra) next *= 2;
    const grown = Buffer.allocUnsafe(next);
    this.bytes.copy(grown, 0, 0, this.at);
    this.bytes = grown;
  }

  reset(): void {
    this.at = 0;
    this.nulls = 0;
  }
}

const TWO_32_INV = 1 / TWO_32;

export class ParquetWriter implements TableWriter<readonly ParquetValue[]> {
  private readonly rowGroupRows: number;
  private readonly rowGroupBytes: number;
  private readonly createdBy: string;
  private readonly buffers: ColumnBuffer[];
  private bufferedRows = 0;
  private offset = 0;
  private rows = 0;
  private readonly rowGroups: RowGroupMeta[] = [];
  private scratch = Buffer.allocUnsafe(1 << 20);
  private started = false;
  private closed = false;

  constructor(
    private readonly columns: readonly ParquetColumn[],
    private readonly sink: ByteSink,
    options: ParquetWriterOptions = {},
  ) {
    if (columns.length === 0) throw new Error("a Parquet file needs at least one column");
    this.rowGroupRows = options.rowGroupRows ?? 131_072;
    this.rowGroupBytes = options.rowGroupBytes ?? 64 * 1024 * 1024;
    this.createdBy = options.createdBy ?? "Tally";
    this.buffers = columns.map(() => new ColumnBuffer(this.rowGroupRows));
  }

  private async emit(chunk: Buffer): Promise<void> {
    this.offset += chunk.length;
    await this.sink(chunk);
  }

  /**
   * Adds rows, each an array of cells in column order. Cells are encoded as they arrive, so a
   * row group holds bytes, not the rows' JavaScript values (which would outlive a young-generation
   * collection and cost full ones).
   */
  async write(rows: readonly (readonly ParquetValue[])[]): Promise<void> {
    if (this.closed) throw new Error("the Parquet writer is closed");
    if (!this.started) {
      this.started = true;
      await this.emit(MAGIC);
    }
    const width = this.columns.length;
    try {
      for (const row of rows) {
        const r = this.bufferedRows;
        for (let c = 0; c < width; c += 1) this.encodeCell(c, this.buffers[c]!, r, row[c]);
        this.bufferedRows += 1;
        if (this.bufferedRows === this.rowGroupRows || ((this.bufferedRows & 1023) === 0 && this.bufferedBytes() >= this.rowGroupBytes)) {
          await this.flushRowGroup();
        }
      }
    } catch (error) {
      this.closed = true; // a half-encoded row cannot be taken back
      throw error;
    }
  }

  private bufferedBytes(): number {
    let bytes = 0;
    for (const buffer of this.buffers) bytes += buffer.at;
    return bytes;
  }

  /** Writes the last row group and the footer. */
  async close(): Promise<void> {
    if (this.closed) throw new Error("the Parquet writer is closed");
    if (!this.started) {
      this.started = true;
      await this.emit(MAGIC);
    }
    if (this.bufferedRows > 0) await this.flushRowGroup();
    this.closed = true;
    const footer = fileFooter(this.columns, this.rowGroups, this.rows, this.createdBy);
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32LE(footer.length, 0);
    await this.emit(Buffer.concat([footer, length, MAGIC]));
  }

  /** Rows and bytes written so far (the whole file's once closed). */
  get written(): { rows: number; bytes: number } {
    return { rows: this.rows, bytes: this.offset };
  }

  private encodeCell(c: number, column: ColumnBuffer, r: number, value: ParquetValue): void {
    const spec = this.columns[c]!;
    if (value === null || value === undefined) {
      if (!spec.nullable) throw new Error(`column ${spec.name} is not nullable, but row ${this.rows + r} has no value`);
      column.present[r] = 0;
      column.nulls += 1;
      return;
    }
    column.present[r] = 1;
    if (spec.type === "string") {
      const text = typeof value === "string" ? value : String(value);
      const n = text.length;
      column.ensure(4 + n * 3);
      const bytes = column.bytes;
      const at = column.at;
      // ASCII byte by byte: for short values this beats a call into Buffer#write by several times.
      let p = at + 4;
      let k = 0;
      for (; k < n; k += 1) {
        const code = text.charCodeAt(k);
        if (code > 0x7f) break;
        bytes[p++] = code;
      }
      const written = k === n ? n : bytes.write(text, at + 4, "utf8");
      bytes[at] = written & 0xff;
      bytes[at + 1] = (written >>> 8) & 0xff;
      bytes[at + 2] = (written >>> 16) & 0xff;
      bytes[at + 3] = (written >>> 24) & 0xff;
      column.at = at + 4 + written;
      return;
    }
    column.ensure(8);
    if (spec.type === "double") {
      column.bytes.writeDoubleLE(Number(value), column.at);
      column.at += 8;
      return;
    }
    const n =
      value instanceof Date
        ? value.getTime()
        : typeof value === "bigint"
          ? value
          : typeof value === "string" && spec.type === "int64"
            ? BigInt(value)
            : Number(value);
    if (typeof n === "bigint") column.bytes.writeBigInt64LE(n, column.at);
    else if (Number.isSafeInteger(n) && n >= 0) {
      // Two 32-bit halves by hand: a BigInt per value costs more than the rest of the cell.
      const low = n % TWO_32;
      const high = Math.floor(n * TWO_32_INV);
      const bytes = column.bytes;
      const at = column.at;
      bytes[at] = low & 0xff;
      bytes[at + 1] = (low >>> 8) & 0xff;
      bytes[at + 2] = (low >>> 16) & 0xff;
      bytes[at + 3] = (low >>> 24) & 0xff;
      bytes[at + 4] = high & 0xff;
      bytes[at + 5] = (high >>> 8) & 0xff;
      bytes[at + 6] = (high >>> 16) & 0xff;
      bytes[at + 7] = (high >>> 24) & 0xff;
    } else if (Number.isSafeInteger(n)) column.bytes.writeBigInt64LE(BigInt(n), column.at);
    else throw new Error(`column ${spec.name}: ${String(value)} is not ${spec.type === "timestamp" ? "a time in milliseconds since 1970" : "a whole number"}`);
    column.at += 8;
  }

  private ensureScratch(size: number): void {
    if (size <= this.scratch.length) return;
    let next = this.scratch.length * 2;
    while (next < size) next *= 2;
    this.scratch = Buffer.allocUnsafe(next);
  }

  private async flushRowGroup(): Promise<void> {
    const count = this.bufferedRows;
    const chunks: ColumnChunkMeta[] = [];
    for (let c = 0; c < this.columns.length; c += 1) {
      const column = this.columns[c]!;
      const buffer = this.buffers[c]!;
      // The page: definition levels (nullable columns), then the PLAIN values.
      this.ensureScratch(16 + Math.ceil(count / 8) + buffer.at);
      const levels = column.nullable ? this.encodeDefinitionLevels(buffer, count) : 0;
      buffer.bytes.copy(this.scratch, levels, 0, buffer.at);
      const pageSize = levels + buffer.at;
      const compressed = compressSync(this.scratch.subarray(0, pageSize));
      const header = pageHeader(pageSize, compressed.length, count);
      const offset = this.offset;
      await this.emit(header);
      await this.emit(compressed);
      chunks.push({ column, offset, uncompressed: header.length + pageSize, compressed: header.length + compressed.length, values: count });
      buffer.reset();
    }
    this.rowGroups.push({ chunks, rows: count });
    this.rows += count;
    this.bufferedRows = 0;
  }

  // The RLE/bit-packed hybrid with bit width 1, preceded by its length (data page v1): one RLE run
  // when every value is present, else bit-packed groups of eight, least significant bit first.
  private encodeDefinitionLevels(buffer: ColumnBuffer, count: number): number {
    let at = 4;
    const varint = (value: number) => {
      let n = value;
      while (n > 0x7f) {
        this.scratch[at++] = (n % 0x80) | 0x80;
        n = Math.floor(n / 0x80);
      }
      this.scratch[at++] = n;
    };
    const groups = Math.ceil(count / 8);
    if (buffer.nulls === 0) {
      varint(count * 2);
      this.scratch[at++] = 1;
    } else {
      varint(groups * 2 + 1);
      const present = buffer.present;
      for (let g = 0; g < groups; g += 1) {
        let byte = 0;
        for (let bit = 0; bit < 8; bit += 1) {
          const i = g * 8 + bit;
          if (i < count && present[i] === 1) byte |= 1 << bit;
        }
        this.scratch[at++] = byte;
      }
    }
    this.scratch.writeUInt32LE(at - 4, 0);
    return at;
  }
}
