// What a dashboard table knows of its columns, apart from how it draws them: the raw value of
// each cell, its kind, how its totals row is made, and the file body of the rows shown.
import { createElement, type ReactNode } from "react";
import type { FigureFormat } from "@/server/store/metric-columns";
import { Moment } from "./figures";
import type { CellValue, ColumnKind, TableFileBody } from "./table-file";

export type { ColumnKind } from "./table-file";

/** How a column's total is made: the sum of its cells, or a ratio recomputed from other columns' sums. */
export type ColumnTotal = "sum" | ((sum: (columnId: string) => number) => number | null);

export interface TableColumn<Row> {
  id: string;
  label: string;
  kind: ColumnKind;
  /** How a figure is written on screen when its kind alone does not tell (ROAS "2.50×" and units are both numbers). */
  format?: FigureFormat;
  /** The raw value: money in major units, a percent as a fraction, a day as YYYY-MM-DD. */
  value: (row: Row) => CellValue;
  /** What the cell shows, when more than its formatted value (a link, a badge). */
  cell?: (row: Row) => ReactNode;
  /** Left out, the totals row leaves the column empty. */
  total?: ColumnTotal;
  /** Offered in the column chooser but not shown until chosen. */
  hidden?: boolean;
  /** The column's name in the files, when it says more than on screen (a moment's zone). */
  fileLabel?: string;
}

/** Numbers before text, nulls last in either direction is the sorter's job; this is the order of two values. */
export function compareCells(a: CellValue, b: CellValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

/** The totals of `rows` by column id: sums, ratios of sums, or null. A ratio may read the sum of a column not shown. */
export function tableTotals<Row>(columns: readonly TableColumn<Row>[], rows: readonly Row[]): Map<string, CellValue> {
  const sums = new Map<string, number>();
  const sum = (columnId: string) => {
    const known = sums.get(columnId);
    if (known !== undefined) return known;
    const column = columns.find((c) => c.id === columnId);
    const total = column ? rows.reduce((acc, row) => acc + (Number(column.value(row)) || 0), 0) : 0;
    sums.set(columnId, total);
    return total;
  };
  return new Map(columns.map((column) => [column.id, column.total === undefined ? null : column.total === "sum" ? sum(column.id) : column.total(sum)]));
}

/** a / b, or null where b is 0: a ratio of sums for a totals row. */
export const ratioOf =
  (numerator: string, denominator: string, scale = 1) =>
  (sum: (columnId: string) => number) => {
    const below = sum(denominator);
    return below === 0 ? null : (sum(numerator) * scale) / below;
  };

/**
 * The body of POST /dashboard/table-file for the rows and columns shown, in the order shown;
 * `columns` is every column of the table (a ratio's total reads the sums of columns not shown).
 */
export function tableFileBody<Row>(
  format: "csv" | "xlsx",
  file: {
    name: string;
    sheet?: string;
    columns: readonly TableColumn<Row>[];
    shown: readonly string[];
    rows: readonly Row[];
    currency: string | null;
    /** Whether the totals row goes last, as the table shows it. */
    withTotals: boolean;
  },
): TableFileBody {
  const shown = file.shown.map((id) => file.columns.find((c) => c.id === id)).filter((c): c is TableColumn<Row> => c !== undefined);
  const totals = tableTotals(file.columns, file.rows);
  const withTotals = file.withTotals && shown.some((c) => c.total !== undefined);
  return {
    format,
    name: file.name,
    ...(file.sheet ? { sheet: file.sheet.slice(0, 31) } : {}),
    columns: shown.map((c) => ({ label: c.fileLabel ?? c.label, kind: c.kind, ...(c.kind === "money" && file.currency ? { currency: file.currency } : {}) })),
    rows: file.rows.map((row) => shown.map((c) => c.value(row))),
    ...(withTotals ? { totals: shown.map((c, i) => (i === 0 && c.total === undefined ? "Total" : (totals.get(c.id) ?? null))) } : {}),
  };
}

/**
 * A moment's column: written by `shown` in the viewer's zone in the table (figures.tsx), and in the
 * files as a UTC ISO string (a real date-time in the XLSX) under "<label> (UTC)".
 */
export function momentColumn<Row>(
  id: string,
  label: string,
  moment: (row: Row) => Date | null,
  shown: (at: Date | null, zone: string) => string,
): TableColumn<Row> {
  return {
    id,
    label,
    fileLabel: `${label} (UTC)`,
    kind: "datetime",
    value: (row) => moment(row)?.toISOString() ?? null,
    cell: (row) => createElement(Moment, { at: moment(row), write: shown }),
  };
}
