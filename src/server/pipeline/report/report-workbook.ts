// A report's XLSX file, for the route's download and the report job alike: the report's columns
// (headers in words, a format per kind), money in the caller's currency, and a bold totals row
// added up from the rows as they are written (metric-columns.ts), so the file still streams. Its
// document properties name the range and the time zone its days are in.
import type { ByteSink, TableWriter } from "@/server/formats/table-writer";
import { tableStream } from "@/server/formats/table-writer";
import { type XlsxColumn, type XlsxOptions, xlsxWriter } from "@/server/formats/xlsx";
import type { XlsxProperties } from "@/server/formats/xlsx-parts";
import { type MetricTotalsOptions, metricTotals } from "@/server/store/metric-columns";
import type { ZonedRange } from "@/server/store/report-query";

export interface ReportWorkbook<Row> {
  sheet: string;
  columns: XlsxColumn<Row>[];
  totals: MetricTotalsOptions;
  /** The first cell of the totals row ("Total" unless given): a report that must say more of its figures says it there. */
  totalsLabel?: string;
}

/** The columns with `currency` on every money column (a column naming the row's own currency keeps it). */
export const inCurrency = <Row>(columns: readonly XlsxColumn<Row>[], currency: string | null): XlsxColumn<Row>[] =>
  columns.map((column) => (column.kind === "money" ? { ...column, currency } : column));

export function reportXlsxWriter<Row extends object>(
  workbook: ReportWorkbook<Row>,
  currency: string | null,
  sink: ByteSink,
  options: Omit<XlsxOptions, "totals"> = {},
): TableWriter<Row> {
  const totals = metricTotals(workbook.totals);
  const columns = inCurrency(workbook.columns, currency);
  const labelKey = String(columns[0]?.key ?? "");
  const writer = xlsxWriter(workbook.sheet, columns, sink, { ...options, totals: () => totals.row(labelKey, workbook.totalsLabel) });
  return {
    async write(rows) {
      totals.add(rows);
      await writer.write(rows);
    },
    close: () => writer.close(),
  };
}

/**
 * The title and description of a report's file: its range and the zone its days are local dates
 * in, and, when the range reaches before the zone's own days (`utcDaysBefore`), that those are UTC days.
 */
export function reportFileProperties(name: string, range: ZonedRange, utcDaysBefore: string | null): XlsxProperties {
  const before = utcDaysBefore === null ? "" : ` Days before ${utcDaysBefore} are UTC days: the zone's own days start then.`;
  return {
    title: `${name}, ${range.startDate} to ${range.endDate}, ${range.zone}`,
    description: `Days are local dates in ${range.zone} (time zone).${before}`,
  };
}

/** The file of `rows` as a byte stream for a Response body (xlsxStream with the report's totals). */
export function reportXlsxStream<Row extends object>(
  workbook: ReportWorkbook<Row>,
  currency: string | null,
  rows: AsyncIterable<Row[]>,
  properties?: XlsxProperties,
): ReadableStream<Uint8Array> {
  return tableStream<Row>((sink) => reportXlsxWriter(workbook, currency, sink, properties ? { properties } : {}), rows);
}
