// Reads a report's XLSX file back with exceljs, a reader Tally did not write, in the JSON's terms:
// the header row in words is checked against the report's columns, and each cell is keyed by the
// JSON field of its column's position, so a test compares a file's rows with the route's JSON.
import ExcelJS from "exceljs";
import type { XlsxColumn } from "@/server/formats/xlsx";

export interface ReportSheet {
  sheet: ExcelJS.Worksheet;
  /** The header row, in words. */
  header: string[];
  /** The JSON field of each column, in file order. */
  fields: string[];
  /** The data rows (the totals row apart), each cell under its JSON field; an empty cell is null. */
  rows: Record<string, unknown>[];
  /** The bold totals row under the last row, when there is one. */
  totals: Record<string, unknown> | null;
}

export async function reportSheet(
  bytes: ArrayBuffer | Buffer,
  columns: readonly XlsxColumn<never>[] | readonly XlsxColumn<Record<string, unknown>>[],
): Promise<ReportSheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as ArrayBuffer);
  const sheet = workbook.worksheets[0]!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
  if (JSON.stringify(header) !== JSON.stringify(columns.map((c) => c.header)))
    throw new Error(`the header row ${JSON.stringify(header)} is not the report's ${JSON.stringify(columns.map((c) => c.header))}`);
  const fields = columns.map((c) => String(c.key));
  const read = (n: number) => {
    const cells = sheet.getRow(n).values as unknown[];
    return Object.fromEntries(fields.map((field, c) => [field, cells[c + 1] ?? null]));
  };
  const rows: Record<string, unknown>[] = [];
  for (let n = 2; n <= sheet.rowCount; n += 1) rows.push(read(n));
  const last = sheet.rowCount > 1 ? sheet.getRow(sheet.rowCount) : null;
  // "Total", or a label that says more of the figures ("Total (hours in UTC, counted from …)").
  const isTotals = last !== null && String(last.getCell(1).value).startsWith("Total") && last.getCell(1).font?.bold === true;
  return { sheet, header, fields, rows: isTotals ? rows.slice(0, -1) : rows, totals: isTotals ? rows.at(-1)! : null };
}
