// What a Parquet file says about itself, in Thrift's compact protocol (parquet.thrift): the header
// of each data page and the footer (schema, row groups, column chunks). Kept apart from the
// writer's encoding of cells, which is where its time goes.
import type { ParquetColumn } from "./parquet-writer";
import { CompactWriter } from "./thrift-compact";

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
export const MAGIC = Buffer.from("PAR1", "ascii");

export interface ColumnChunkMeta {
  column: ParquetColumn;
  offset: number;
  uncompressed: number;
  compressed: number;
  values: number;
}

export interface RowGroupMeta {
  chunks: ColumnChunkMeta[];
  rows: number;
}

/** A data page (v1) of `count` values: PLAIN values after RLE definition levels, Snappy-compressed. */
export const pageHeader = (pageSize: number, compressedSize: number, count: number): Buffer =>
  new CompactWriter()
    .i32(1, PAGE_DATA)
    .i32(2, pageSize)
    .i32(3, compressedSize)
    .struct(5, (w) => w.i32(1, count).i32(2, ENCODING_PLAIN).i32(3, ENCODING_RLE).i32(4, ENCODING_RLE))
    .finish();

/** FileMetaData: the flat schema under its root, and where each row group's column chunks are. */
export function fileFooter(columns: readonly ParquetColumn[], rowGroups: readonly RowGroupMeta[], rows: number, createdBy: string): Buffer {
  return new CompactWriter()
    .i32(1, 1)
    .list(2, "struct", [null, ...columns], (w, column) => {
      if (column === null) {
        w.binary(4, "schema").i32(5, columns.length);
        return;
      }
      w.i32(1, PHYSICAL[column.type])
        .i32(3, column.nullable ? OPTIONAL : REQUIRED)
        .binary(4, column.name);
      if (column.type === "string") w.i32(6, CONVERTED_UTF8).struct(10, (l) => l.struct(1, () => {}));
      if (column.type === "timestamp") {
        // TIMESTAMP(isAdjustedToUTC = true, unit = MILLIS), with the legacy converted type beside it.
        w.i32(6, CONVERTED_TIMESTAMP_MILLIS).struct(10, (l) => l.struct(8, (t) => t.bool(1, true).struct(2, (u) => u.struct(1, () => {}))));
      }
    })
    .i64(3, rows)
    .list(4, "struct", rowGroups, (w, group) => {
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
        .i64(
          2,
          group.chunks.reduce((sum, chunk) => sum + chunk.uncompressed, 0),
        )
        .i64(3, group.rows);
    })
    .binary(6, createdBy)
    .finish();
}
