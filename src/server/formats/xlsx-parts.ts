// The XML parts of an XLSX file (SpreadsheetML, OPC): the fixed parts, those that list the
// sheets, and the cells of a sheet. Inline strings rather than a shared-string table, so a sheet
// is written as its rows arrive and nothing grows with the file.

import { DAY_MS } from "@/server/core/days";
import type { XlsxColumn } from "./xlsx";

// Style indexes of styles.xml's cellXfs: 0 plain, 1 bold (the header), 2 a yyyy-mm-dd date.
export const BOLD = 1;
const DATE = 2;

export const sheetNumbers = (sheets: number) => Array.from({ length: sheets }, (_, i) => i + 1);

export const contentTypes = (sheets: number) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheetNumbers(
  sheets,
)
  .map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`)
  .join("")}<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;

export const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

// Sheet n is rId<n>; the styles come after the sheets.
export const workbookRels = (sheets: number) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheetNumbers(sheets)
  .map(
    (n) =>
      `<Relationship Id="rId${n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${n}.xml"/>`,
  )
  .join(
    "",
  )}<Relationship Id="rId${sheets + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;

export const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

export const workbook = (names: string[]) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${names.map((name, i) => `<sheet name="${escapeXml(name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join("")}</sheets></workbook>`;

/** The n-th sheet's name: the report's, then "<name> (2)", ... within Excel's 31 characters and without the characters it refuses. */
export function sheetNameOf(base: string, n: number): string {
  const clean = base.replace(/[\\/?*[\]:]/g, " ").trim() || "Sheet";
  const suffix = n === 1 ? "" : ` (${n})`;
  return `${clean.slice(0, 31 - suffix.length)}${suffix}`;
}

// Characters XML 1.0 does not allow at all; they are dropped rather than making the file unreadable.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what XML 1.0 forbids.
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

// biome-ignore lint/suspicious/noControlCharactersInRegex: these control characters are what XML 1.0 forbids.
const NEEDS_ESCAPING = /[&<>"\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function escapeXml(text: string): string {
  if (!NEEDS_ESCAPING.test(text)) return text;
  return text.replace(INVALID_XML, "").replace(/[&<>"]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;"));
}

/** A–Z, AA–ZZ, ... for column index 0, 1, ... */
export function columnLetters(index: number): string {
  let letters = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);

/** A YYYY-MM-DD day as Excel's serial day number (days since 1899-12-30); null when not a day. */
function serialDay(value: unknown): number | null {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) ? null : (ms - EXCEL_EPOCH_MS) / DAY_MS;
}

export const inlineString = (ref: string, text: string, style = 0) =>
  `<c r="${ref}"${style ? ` s="${style}"` : ""} t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;

export function cellXml<Row>(column: XlsxColumn<Row>, ref: string, value: unknown): string {
  if (value === null || value === undefined || value === "") return "";
  if (column.type === "date") {
    const serial = serialDay(value);
    return serial === null ? inlineString(ref, String(value)) : `<c r="${ref}" s="${DATE}"><v>${serial}</v></c>`;
  }
  if (column.type === "number" && typeof value === "number" && Number.isFinite(value)) return `<c r="${ref}"><v>${value}</v></c>`;
  return inlineString(ref, String(value));
}

/** A sheet up to its first data row: column widths, the bold header row frozen above the rest. */
export function sheetStart<Row>(columns: readonly XlsxColumn<Row>[], letters: readonly string[]): string {
  const widths = columns
    .map((column, index) => `<col min="${index + 1}" max="${index + 1}" width="${column.width ?? Math.max(12, column.header.length + 2)}" customWidth="1"/>`)
    .join("");
  const header = columns.map((column, index) => inlineString(`${letters[index]}1`, column.header, BOLD)).join("");
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/><cols>${widths}</cols><sheetData><row r="1" s="${BOLD}" customFormat="1">${header}</row>`;
}

export const SHEET_END = "</sheetData></worksheet>";

/** Rows [from, to) of `rows` as sheet rows numbered from `firstNumber`. */
export function rowsXml<Row extends object>(
  columns: readonly XlsxColumn<Row>[],
  letters: readonly string[],
  rows: readonly Row[],
  from: number,
  to: number,
  firstNumber: number,
): string {
  const parts: string[] = [];
  for (let i = from, rowNumber = firstNumber; i < to; i += 1, rowNumber += 1) {
    const row = rows[i] as Record<string, unknown>;
    let cells = "";
    for (let index = 0; index < columns.length; index += 1) {
      const column = columns[index]!;
      cells += cellXml(column, `${letters[index]}${rowNumber}`, row[column.key]);
    }
    parts.push(`<row r="${rowNumber}">${cells}</row>`);
  }
  return parts.join("");
}
