// XLSX downloads of the report routes (decisions §5): every matching row, numbers as numbers,
// dates as dates, a frozen header row. exceljs's streaming writer commits each row as it goes,
// so memory stays bounded however many rows a report has.
import { PassThrough, Readable } from "node:stream";
import ExcelJS from "exceljs";

export interface XlsxColumn<Row> {
  header: string;
  key: keyof Row & string;
  type: "text" | "number" | "date";
  width?: number;
}

/** A YYYY-MM-DD day as the Date exceljs writes as a date cell (UTC midnight). */
const toDate = (day: unknown) => (typeof day === "string" && day ? new Date(`${day}T00:00:00Z`) : null);

/**
 * An XLSX file of `rows` (pulled page by page from the async iterable) as a byte stream for a
 * Response body. The header row is frozen; date columns carry a date format.
 */
export function xlsxStream<Row extends object>(sheetName: string, columns: XlsxColumn<Row>[], rows: AsyncIterable<Row[]>): ReadableStream<Uint8Array> {
  const output = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: false });
  const sheet = workbook.addWorksheet(sheetName, { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = columns.map((column) => ({
    header: column.header,
    key: column.key,
    width: column.width ?? Math.max(12, column.header.length + 2),
    style: column.type === "date" ? { numFmt: "yyyy-mm-dd" } : {},
  }));
  sheet.getRow(1).font = { bold: true };
  void (async () => {
    try {
      for await (const page of rows) {
        for (const row of page) {
          const values: Record<string, unknown> = {};
          for (const column of columns) {
            const value = (row as Record<string, unknown>)[column.key];
            values[column.key] = column.type === "date" ? toDate(value) : value;
          }
          sheet.addRow(values).commit();
        }
      }
      sheet.commit();
      await workbook.commit();
    } catch (error) {
      output.destroy(error as Error);
    }
  })();
  return Readable.toWeb(output) as ReadableStream<Uint8Array>;
}

/** Response headers of a download named `<name>_<start>_<end>.xlsx`. */
export function xlsxHeaders(name: string, startDate: string, endDate: string): Record<string, string> {
  return {
    "Content-Type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "Content-Disposition": `attachment; filename="${name}_${startDate}_${endDate}.xlsx"`,
    "Cache-Control": "private, no-store",
  };
}
