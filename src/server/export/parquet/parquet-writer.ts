// Tally's Parquet writer: flat schemas of strings, UTC millisecond timestamps, doubles and
// int64s, PLAIN-encoded, one Snappy-compressed data page per column and row group. Rows are
// buffered a row group at a time, column by column, and each finished row group goes to `sink`,
// so memory holds one row group however many rows a file has.
// Written for the export rather than taken from parquetjs-lite or hyparquet-writer: on the same
// 1,000,000 event rows those took 40× and 8× as long as DuckDB's writer (npm run bench:export;
// docs/decisions.md). Files are checked with DuckDB, a reader Tally did not write.
import { compressSync } from "snappy";
import { CompactWriter } from "./thrift-compact";

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
  /** Rows per row group (default 65,536): the memory a writer holds. */
  rowGroupRows?: number;
  createdBy?: string;
}

// Parquet's enums (parquet.thrift).
const PHYSICAL = { int64: 2, double: 5, string: 6, timestamp: 2 } as const;
const CONVERTED_UTF8 = 0;
const CONVERTED_TIMESTAMP_MILLIS = 9;
const REQUIRED = 0;
const OPTIONAL = 1;
const ENCODING_PLAIN = 0;
const ENCODING_RLE = 3;
const CODEC_SNAPPY = 1;
const PAGE_DATA = 0;
const MAGIC = Buffer.from("PAR1", "ascii");
const TWO_32 = 4_294_967_296;

interface ColumnChunkMeta {
  column: ParquetColumn;
  offset: number;
  uncompressed: number;
  compressed: number;
  values: number;
}

export class ParquetWriter {
  private readonly rowGroupRows: number;
  private readonly createdBy: string;
  private readonly buffered: ParquetValue[][];
  private bufferedRows = 0;
  private offset = 0;
  private rows = 0;
  private readonly rowGroups: { chunks: ColumnChunkMeta[]; rows: number }[] = [];
  private scratch = Buffer.allocUnsafe(1 << 20);
  private started = false;
  private closed = false;

  constructor(
    private readonly columns: readonly ParquetColumn[],
    private readonly sink: (chunk: Buffer) => void | Promise<void>,
    options: ParquetWriterOptions = {},
  ) {
    if (columns.length === 0) throw new Error("a Parquet file needs at least one column");
    this.rowGroupRows = options.rowGroupRows ?? 65_536;
    this.createdBy = options.createdBy ?? "Tally";
    this.buffered = columns.map(() => new Array<ParquetValue>(this.rowGroupRows));
  }

  private async emit(chunk: Buffer): Promise<void> {
    this.offset += chunk.length;
    await this.sink(chunk);
  }

  /** Adds rows, each an array of cells in column order. */
  async write(rows: readonly (readonly ParquetValue[])[]): Promise<void> {
    if (this.closed) throw new Error("the Parquet writer is closed");
    if (!this.started) {
      this.started = true;
      await this.emit(MAGIC);
    }
    const width = this.columns.length;
    for (const row of rows) {
      for (let c = 0; c < width; c += 1) this.buffered[c]![this.bufferedRows] = row[c];
      this.bufferedRows += 1;
      if (this.bufferedRows === this.rowGroupRows) await this.flushRowGroup();
    }
  }

  /** Writes the last row group and the footer; returns the file's row and byte counts. */
  async close(): Promise<{ rows: number; bytes: number }> {
    if (this.closed) throw new Error("the Parquet writer is closed");
    if (!this.started) {
      this.started = true;
      await this.emit(MAGIC);
    }
    if (this.bufferedRows > 0) await this.flushRowGroup();
    this.closed = true;
    const footer = this.footer();
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32LE(footer.length, 0);
    await this.emit(Buffer.concat([footer, length, MAGIC]));
    return { rows: this.rows, bytes: this.offset };
  }

  private ensure(size: number): void {
    if (size <= this.scratch.length) return;
    let next = this.scratch.length * 2;
    while (next < size) next *= 2;
    const grown = Buffer.allocUnsafe(next);
    this.scratch.copy(grown);
    this.scratch = grown;
  }

  private async flushRowGroup(): Promise<void> {
    const count = this.bufferedRows;
    const chunks: ColumnChunkMeta[] = [];
    for (let c = 0; c < this.columns.length; c += 1) {
      const column = this.columns[c]!;
      const pageSize = this.encodePage(column, this.buffered[c]!, count);
      const compressed = compressSync(this.scratch.subarray(0, pageSize));
      const header = new CompactWriter()
        .i32(1, PAGE_DATA)
        .i32(2, pageSize)
        .i32(3, compressed.length)
        .struct(5, (w) => w.i32(1, count).i32(2, ENCODING_PLAIN).i32(3, ENCODING_RLE).i32(4, ENCODING_RLE))
        .finish();
      const offset = this.offset;
      await this.emit(header);
      await this.emit(compressed);
      chunks.push({ column, offset, uncompressed: header.length + pageSize, compressed: header.length + compressed.length, values: count });
      this.buffered[c]!.fill(undefined, 0, count); // let the row group's values be collected
    }
    this.rowGroups.push({ chunks, rows: count });
    this.rows += count;
    this.bufferedRows = 0;
  }

  /** Definition levels (nullable columns) and PLAIN values into `scratch`; returns the page size. */
  private encodePage(column: ParquetColumn, values: ParquetValue[], count: number): number {
    let at = 0;
    if (column.nullable) at = this.encodeDefinitionLevels(values, count);
    else {
      for (let i = 0; i < count; i += 1) {
        if (values[i] === null || values[i] === undefined) throw new Error(`column ${column.name} is not nullable, but row ${this.rows + i} has no value`);
      }
    }
    switch (column.type) {
      case "string":
        for (let i = 0; i < count; i += 1) {
          const value = values[i];
          if (value === null || value === undefined) continue;
          const text = typeof value === "string" ? value : String(value);
          this.ensure(at + 4 + text.length * 3);
          const written = this.scratch.write(text, at + 4, "utf8");
          this.scratch.writeUInt32LE(written, at);
          at += 4 + written;
        }
        return at;
      case "double":
        this.ensure(at + count * 8);
        for (let i = 0; i < count; i += 1) {
          const value = values[i];
          if (value === null || value === undefined) continue;
          this.scratch.writeDoubleLE(Number(value), at);
          at += 8;
        }
        return at;
      case "int64":
      case "timestamp":
        this.ensure(at + count * 8);
        for (let i = 0; i < count; i += 1) {
          const value = values[i];
          if (value === null || value === undefined) continue;
          at = this.writeInt64(column, value, at);
        }
        return at;
    }
  }

  private writeInt64(column: ParquetColumn, value: Exclude<ParquetValue, null | undefined>, at: number): number {
    const n = value instanceof Date ? value.getTime() : typeof value === "bigint" ? value : typeof value === "string" && column.type === "int64" ? BigInt(value) : Number(value);
    if (typeof n === "bigint") this.scratch.writeBigInt64LE(n, at);
    else if (Number.isSafeInteger(n) && n >= 0) {
      // Two 32-bit halves: BigInt conversion per value costs more than the rest of the cell.
      this.scratch.writeUInt32LE(n % TWO_32, at);
      this.scratch.writeUInt32LE(Math.floor(n / TWO_32), at + 4);
    } else if (Number.isSafeInteger(n)) this.scratch.writeBigInt64LE(BigInt(n), at);
    else throw new Error(`column ${column.name}: ${String(value)} is not a whole number`);
    return at + 8;
  }

  // The RLE/bit-packed hybrid with bit width 1, preceded by its length (data page v1): one RLE run
  // when every value is present, else bit-packed groups of eight, least significant bit first.
  private encodeDefinitionLevels(values: ParquetValue[], count: number): number {
    let nulls = 0;
    for (let i = 0; i < count; i += 1) if (values[i] === null || values[i] === undefined) nulls += 1;
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
    this.ensure(16 + groups);
    if (nulls === 0) {
      varint(count * 2);
      this.scratch[at++] = 1;
    } else {
      varint(groups * 2 + 1);
      for (let g = 0; g < groups; g += 1) {
        let byte = 0;
        for (let bit = 0; bit < 8; bit += 1) {
          const i = g * 8 + bit;
          if (i < count && values[i] !== null && values[i] !== undefined) byte |= 1 << bit;
        }
        this.scratch[at++] = byte;
      }
    }
    this.scratch.writeUInt32LE(at - 4, 0);
    return at;
  }

  private footer(): Buffer {
    const columns = this.columns;
    return new CompactWriter()
      .i32(1, 1)
      .list(2, "struct", [null, ...columns], (w, column) => {
        if (column === null) {
          w.binary(4, "schema").i32(5, columns.length);
          return;
        }
        w.i32(1, PHYSICAL[column.type]).i32(3, column.nullable ? OPTIONAL : REQUIRED).binary(4, column.name);
        if (column.type === "string") w.i32(6, CONVERTED_UTF8).struct(10, (l) => l.struct(1, () => {}));
        if (column.type === "timestamp") {
          // TIMESTAMP(isAdjustedToUTC = true, unit = MILLIS), with the legacy converted type beside it.
          w.i32(6, CONVERTED_TIMESTAMP_MILLIS).struct(10, (l) => l.struct(8, (t) => t.bool(1, true).struct(2, (u) => u.struct(1, () => {}))));
        }
      })
      .i64(3, this.rows)
      .list(4, "struct", this.rowGroups, (w, group) => {
        w.list(1, "struct", group.chunks, (cw, chunk) => {
          cw.i64(2, chunk.offset).struct(3, (m) =>
            m
              .i32(1, PHYSICAL[chunk.column.type])
              .list(2, "i32", [ENCODING_PLAIN, ENCODING_RLE], (e, encoding) => e.element(encoding))
              .list(3, "binary", [chunk.column.name], (e, name) => e.element(name))
              .i32(4, CODEC_SNAPPY)
              .i64(5, chunk.values)
              .i64(6, chunk.uncompressed)
              .i64(7, chunk.compressed)
              .i64(9, chunk.offset),
          );
        })
          .i64(2, group.chunks.reduce((sum, chunk) => sum + chunk.uncompressed, 0))
          .i64(3, group.rows);
      })
      .binary(6, this.createdBy)
      .finish();
  }
}
