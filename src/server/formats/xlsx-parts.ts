// The XML parts of an XLSX file (SpreadsheetML, OPC): the fixed parts, those that list the
// sheets, and the cells of a sheet. Inline strings rather than a shared-string table, so a sheet
// is written as its rows arrive and nothing grows with the file. Text is never a formula (no <f>
// is written): an inline string is read as text, and one that begins like a formula carries
// quotePrefix too, so editing the cell keeps it text.

import { DAY_MS } from "@/server/core/days";
import { beginsLikeFormula } from "./csv";
import type { XlsxColumn } from "./xlsx";
import { columnWidth, shownLength, type XlsxKind, type XlsxStyles } from "./xlsx-styles";

export const sheetNumbers = (sheets: number) => Array.from({ length: sheets }, (_, i) => i + 1);

export const contentTypes = (sheets: number, core = false) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheetNumbers(
  sheets,
)
  .map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`)
  .join(
    "",
  )}<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>${core ? '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' : ""}</Types>`;

export const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

/** The package's relationships, with the document properties (docProps/core.xml) when the file has them. */
export const rootRels = (core: boolean) =>
  core
    ? ROOT_RELS.replace(
        "</Relationships>",
        '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>',
      )
    : ROOT_RELS;

/** What a file says about itself in its document properties (File > Properties): a title and a description. */
export interface XlsxProperties {
  title: string;
  description: string;
}

/** docProps/core.xml of `properties`. */
export const coreProperties = ({ title, description }: XlsxProperties) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${escapeXml(title)}</dc:title><dc:description>${escapeXml(description)}</dc:description></cp:coreProperties>`;

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

/** An ISO 8601 time (or a Date) as Excel's serial day with the time of day as its fraction, in UTC; null when not a time. */
function serialTime(value: unknown): number | null {
  const ms = value instanceof Date ? value.getTime() : typeof value === "string" && /^\d{4}-\d{2}-\d{2}([T ]|$)/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? null : (ms - EXCEL_EPOCH_MS) / DAY_MS;
}

export const inlineString = (ref: string, text: string, style = 0) =>
  `<c r="${ref}"${style ? ` s="${style}"` : ""} t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;

/** A column as its cells are written: its kind's style, plain and bold, looked up once. */
export interface CellLayout {
  key: string | number;
  kind: XlsxKind;
  plain: number;
  bold: number;
  /** integer, number, money, percent: finite numbers are written as numbers, anything else as text. */
  numeric: boolean;
  /** The markup between a number cell's reference and its value, plain and bold. */
  plainOpen: string;
  boldOpen: string;
  /** Money whose currency each row names: that currency's style, plain and bold. */
  rowCurrency?: { key: string; styles: XlsxStyles; cache: Map<string, [number, number]> };
  /** The file's styles, for text that begins like a formula (XlsxStyles.quotedText). */
  styles: XlsxStyles;
}

export function cellLayouts<Row>(columns: readonly XlsxColumn<Row>[], styles: XlsxStyles): CellLayout[] {
  return columns.map((column) => {
    const plain = styles.style(column.kind, column.currency, false);
    const bold = styles.style(column.kind, column.currency, true);
    return {
      key: column.key,
      kind: column.kind,
      plain,
      bold,
      numeric: column.kind !== "text" && column.kind !== "date" && column.kind !== "datetime",
      plainOpen: `" s="${plain}"><v>`,
      boldOpen: `" s="${bold}"><v>`,
      rowCurrency: column.kind === "money" && column.currencyKey ? { key: column.currencyKey, styles, cache: new Map() } : undefined,
      styles,
    };
  });
}

function styleOf(layout: CellLayout, row: Record<string | number, unknown>, bold: boolean): number {
  const own = layout.rowCurrency && row[layout.rowCurrency.key];
  if (typeof own !== "string" || own === "") return bold ? layout.bold : layout.plain;
  const { styles, cache } = layout.rowCurrency!;
  let pair = cache.get(own);
  if (!pair) {
    pair = [styles.style("money", own, false), styles.style("money", own, true)];
    cache.set(own, pair);
  }
  return pair[bold ? 1 : 0];
}

// Over a sheet's cells this runs most: a number cell is one template with its style's markup made beforehand.
function cellXml(layout: CellLayout, ref: string, row: Record<string | number, unknown>, bold: boolean): string {
  const value = row[layout.key];
  if (value === null || value === undefined || value === "") return "";
  if (layout.numeric) {
    if (typeof value === "number" && Number.isFinite(value))
      return `<c r="${ref}${layout.rowCurrency ? `" s="${styleOf(layout, row, bold)}"><v>` : bold ? layout.boldOpen : layout.plainOpen}${value}</v></c>`;
  } else if (layout.kind !== "text") {
    const serial = layout.kind === "date" ? serialDay(value) : serialTime(value);
    if (serial !== null) return `<c r="${ref}${bold ? layout.boldOpen : layout.plainOpen}${serial}</v></c>`;
  }
  const text = String(value);
  return inlineString(ref, text, beginsLikeFormula(text) ? layout.styles.quotedText(bold) : bold ? 1 : 0);
}

/** Rows a sheet's column widths are measured on: the first ones, so a file of any length streams. */
export const WIDTH_SAMPLE = 500;

/** Each column's width from its header and the first WIDTH_SAMPLE `rows`. */
export function columnWidths<Row extends object>(columns: readonly XlsxColumn<Row>[], rows: readonly Row[]): number[] {
  const sample = rows.slice(0, WIDTH_SAMPLE) as readonly Record<string | number, unknown>[];
  return columns.map((column) => {
    if (column.width !== undefined) return column.width;
    let longest = column.header.length;
    for (const row of sample) {
      const currency = column.currencyKey ? row[column.currencyKey] : column.currency;
      longest = Math.max(longest, shownLength(column.kind, row[column.key], typeof currency === "string" ? currency : null));
    }
    return columnWidth(longest);
  });
}

/** A sheet up to its first data row: column widths, the bold header row frozen above the rest. */
export function sheetStart<Row>(columns: readonly XlsxColumn<Row>[], letters: readonly string[], widths: readonly number[]): string {
  const cols = widths.map((width, index) => `<col min="${index + 1}" max="${index + 1}" width="${width}" customWidth="1"/>`).join("");
  const header = columns.map((column, index) => inlineString(`${letters[index]}1`, column.header, 1)).join("");
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/><cols>${cols}</cols><sheetData><row r="1" s="1" customFormat="1">${header}</row>`;
}

export const SHEET_END = "</sheetData></worksheet>";

/** Rows [from, to) of `rows` as sheet rows numbered from `firstNumber`; bold for the totals row. */
export function rowsXml<Row extends object>(
  layouts: readonly CellLayout[],
  letters: readonly string[],
  rows: readonly Row[],
  from: number,
  to: number,
  firstNumber: number,
  bold = false,
): string {
  const parts: string[] = [];
  for (let i = from, rowNumber = firstNumber; i < to; i += 1, rowNumber += 1) {
    const row = rows[i] as Record<string | number, unknown>;
    let cells = "";
    for (let index = 0; index < layouts.length; index += 1) cells += cellXml(layouts[index]!, `${letters[index]}${rowNumber}`, row, bold);
    parts.push(bold ? `<row r="${rowNumber}" s="1" customFormat="1">${cells}</row>` : `<row r="${rowNumber}">${cells}</row>`);
  }
  return parts.join("");
}
