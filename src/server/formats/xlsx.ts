// XLSX files of the report routes' downloads, the report jobs and the dashboard's tables
// (docs/interface-decisions.md §5, docs/reports.md "XLSX columns"): every row, numbers as numbers
// in their kind's format (counts, amounts, money with its currency, percentages), dates as dates, a
// bold and frozen header row, columns as wide as their first rows need, and a bold totals row. The sheet's XML is written into a streaming ZIP
// batch by batch as the rows arrive, so memory stays bounded however many rows a report has.
// Written by hand rather than with exceljs's streaming writer, which took six times as long on
// the same 100,000 rows (npm run bench:xlsx; docs/decisions/0013-xlsx-writer.md); exceljs reads the files back in
// the tests. A sheet holds at most Excel's 1,048,576 rows (header included): further rows go on
// to another sheet, header repeated. How many sheets there will be is known only at the end, so
// the sheets come first in the archive and the parts that list them (content types, workbook, its
// relationships) after them: ZIP readers find entries through the central directory at the end,
// and OPC sets no order (openpyxl writes [Content_Types].xml last).
import { type ByteSink, type TableWriter, tableStream } from "./table-writer";
import {
  cellLayouts,
  columnLetters,
  columnWidths,
  contentTypes,
  coreProperties,
  rootRels,
  rowsXml,
  SHEET_END,
  sheetNameOf,
  sheetNumbers,
  sheetStart,
  workbook,
  workbookRels,
  type XlsxProperties,
} from "./xlsx-parts";
import { type XlsxKind, XlsxStyles } from "./xlsx-styles";
import { type ZipWriter, zipWriter } from "./zip";

/**
 * Rows turned into XML and handed to the archive at once. V8 builds the XML of each row as a
 * rope of its cells' strings, about ten times the size of the flat text, until the rows are
 * joined: a batch of 2,000 rows of the widest report held some 20 MB of heap that way, which ran
 * a report job's worker out of a 48 MB old generation. 250 rows hold about 2.5 MB.
 */
export const XLSX_ROWS_PER_WRITE = 250;

/** Rows on one worksheet in Excel, the header row included. */
export const XLSX_MAX_ROWS_PER_SHEET = 1_048_576;

export interface XlsxOptions {
  /** Rows per sheet, header included (XLSX_MAX_ROWS_PER_SHEET unless given; at least 2). */
  rowsPerSheet?: number;
  /** The archive (zip.ts unless given): `npm run bench:xlsx` passes the writer it is compared with. */
  zip?: (sink: ByteSink) => ZipWriter;
  /**
   * The totals row, asked for once every row is written (so it may be summed from them): written
   * bold under the last row, or left out when null.
   */
  totals?: () => object | null;
  /** The file's title and description in its document properties (a report's names its range and time zone). */
  properties?: XlsxProperties;
}

export interface XlsxColumn<Row> {
  header: string;
  /** The row's field (or, for rows given as arrays, its index). */
  key: keyof Row & (string | number);
  kind: XlsxKind;
  /** Money: the ISO 4217 code shown before the amounts. */
  currency?: string | null;
  /** Money: a field of the row naming its own currency, which wins over `currency`. */
  currencyKey?: keyof Row & string;
  /** Characters; measured on the first rows unless given. */
  width?: number;
}

/** An XLSX file of one report: a sheet opens with the first row it holds, so rows that end at a sheet's end leave no empty sheet. */
export function xlsxWriter<Row extends object>(sheetName: string, columns: XlsxColumn<Row>[], sink: ByteSink, options: XlsxOptions = {}): TableWriter<Row> {
  const rowsPerSheet = options.rowsPerSheet ?? XLSX_MAX_ROWS_PER_SHEET;
  if (!Number.isInteger(rowsPerSheet) || rowsPerSheet < 2 || rowsPerSheet > XLSX_MAX_ROWS_PER_SHEET)
    throw new RangeError(`rowsPerSheet must be 2 to ${XLSX_MAX_ROWS_PER_SHEET}`);
  const dataRows = rowsPerSheet - 1;
  const zip = (options.zip ?? zipWriter)(sink);
  const letters = columns.map((_, index) => columnLetters(index));
  const styles = new XlsxStyles();
  const layouts = cellLayouts(columns, styles);
  /** The start of every sheet, made with the first one from the rows it opens with. */
  let start: string | null = null;
  let sheets = 0;
  /** Data rows on the open sheet; null when no sheet is open. */
  let onSheet: number | null = null;

  const openSheet = async (firstRows: readonly Row[]) => {
    start ??= sheetStart(columns, letters, columnWidths(columns, firstRows));
    sheets += 1;
    onSheet = 0;
    await zip.entry(`xl/worksheets/sheet${sheets}.xml`);
    await zip.write(start);
  };
  const closeSheet = async () => {
    onSheet = null;
    await zip.write(SHEET_END);
  };

  return {
    async write(rows) {
      for (let at = 0; at < rows.length; ) {
        if (onSheet === null) await openSheet(rows);
        const take = Math.min(rows.length - at, dataRows - onSheet!, XLSX_ROWS_PER_WRITE);
        await zip.write(rowsXml(layouts, letters, rows, at, at + take, onSheet! + 2));
        at += take;
        onSheet! += take;
        if (onSheet === dataRows) await closeSheet();
      }
    },
    async close() {
      const totals = options.totals?.() ?? null;
      // No rows: one sheet with the header (and the totals, if any). A full last sheet puts the totals on a new one.
      if (onSheet === null && (sheets === 0 || totals)) await openSheet([]);
      if (totals) await zip.write(rowsXml(layouts, letters, [totals], 0, 1, onSheet! + 2, true));
      if (onSheet !== null) await closeSheet();
      const { properties } = options;
      const parts: [string, string][] = [
        ["[Content_Types].xml", contentTypes(sheets, properties !== undefined)],
        ["_rels/.rels", rootRels(properties !== undefined)],
        ...(properties ? [["docProps/core.xml", coreProperties(properties)] as [string, string]] : []),
        ["xl/workbook.xml", workbook(sheetNumbers(sheets).map((n) => sheetNameOf(sheetName, n)))],
        ["xl/_rels/workbook.xml.rels", workbookRels(sheets)],
        ["xl/styles.xml", styles.xml()],
      ];
      for (const [name, xml] of parts) {
        await zip.entry(name);
        await zip.write(xml);
      }
      await zip.close();
    },
  };
}

/**
 * An XLSX file of `rows` (pulled page by page from the async iterable) as a byte stream for a
 * Response body. Rows are pulled only as fast as the client reads. If `rows` fails, the stream
 * errors, so the client never keeps a file that looks complete.
 */
export function xlsxStream<Row extends object>(
  sheetName: string,
  columns: XlsxColumn<Row>[],
  rows: AsyncIterable<Row[]>,
  options: XlsxOptions = {},
): ReadableStream<Uint8Array> {
  return tableStream<Row>((sink) => xlsxWriter(sheetName, columns, sink, options), rows);
}

/** Response headers of a download named `<name>_<start>_<end>.xlsx`. */
export function xlsxHeaders(name: string, startDate: string, endDate: string): Record<string, string> {
  return {
    "Content-Type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "Content-Disposition": `attachment; filename="${name}_${startDate}_${endDate}.xlsx"`,
    "Cache-Control": "private, no-store",
  };
}
