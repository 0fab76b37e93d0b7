// XLSX downloads of the report routes (decisions §5): every matching row, numbers as numbers,
// dates as dates, a bold and frozen header row. The sheet's XML is written row by row into a
// streaming ZIP, batch by batch as the rows arrive, so memory stays bounded however many rows a
// report has. Written by hand rather than with exceljs's streaming writer, which took six times
// as long on the same 100,000 rows (npm run bench:xlsx; docs/decisions.md); exceljs
// reads the files back in the tests. A sheet holds at most Excel's 1,048,576 rows (header
// included): further rows go on to another sheet, header repeated. How many sheets there will be
// is known only at the end, so the sheets come first in the archive and the parts that list them
// (content types, workbook, its relationships) after them: ZIP readers find entries through the
// central directory at the end, and OPC sets no order (openpyxl writes [Content_Types].xml last).
import { type ZipEntry, zipStream } from "./streaming-zip";

/** Rows on one worksheet in Excel, the header row included. */
export const XLSX_MAX_ROWS_PER_SHEET = 1_048_576;

export interface XlsxOptions {
  /** Rows per sheet, header included (XLSX_MAX_ROWS_PER_SHEET unless given; at least 2). */
  rowsPerSheet?: number;
}

export interface XlsxColumn<Row> {
  header: string;
  key: keyof Row & string;
  type: "text" | "number" | "date";
  width?: number;
}

// Style indexes of styles.xml's cellXfs: 0 plain, 1 bold (the header), 2 a yyyy-mm-dd date.
const BOLD = 1;
const DATE = 2;

const sheetNumbers = (sheets: number) => Array.from({ length: sheets }, (_, i) => i + 1);

const contentTypes = (sheets: number) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheetNumbers(
  sheets,
)
  .map((n) => `<Override PartName="/xl/worksheets/sheet${n}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`)
  .join("")}<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;

const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

// Sheet n is rId<n>; the styles come after the sheets.
const workbookRels = (sheets: number) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheetNumbers(sheets)
  .map(
    (n) =>
      `<Relationship Id="rId${n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${n}.xml"/>`,
  )
  .join(
    "",
  )}<Relationship Id="rId${sheets + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

const workbook = (names: string[]) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
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
function columnLetters(index: number): string {
  let letters = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}

const EXCEL_EPOCH_MS = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;

/** A YYYY-MM-DD day as Excel's serial day number (days since 1899-12-30); null when not a day. */
function serialDay(value: unknown): number | null {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isNaN(ms) ? null : (ms - EXCEL_EPOCH_MS) / DAY_MS;
}

const inlineString = (ref: string, text: string, style = 0) =>
  `<c r="${ref}"${style ? ` s="${style}"` : ""} t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;

function cellXml<Row>(column: XlsxColumn<Row>, ref: string, value: unknown): string {
  if (value === null || value === undefined || value === "") return "";
  if (column.type === "date") {
    const serial = serialDay(value);
    return serial === null ? inlineString(ref, String(value)) : `<c r="${ref}" s="${DATE}"><v>${serial}</v></c>`;
  }
  if (column.type === "number" && typeof value === "number" && Number.isFinite(value)) return `<c r="${ref}"><v>${value}</v></c>`;
  return inlineString(ref, String(value));
}

/**
 * The rows, page by page, handed out a sheet at a time: `take(n)` gives at most n rows (splitting
 * a page that straddles two sheets), `more()` says whether any are left. Pulls from the source
 * only as the sheets are written.
 */
class RowPages<Row> {
  private page: Row[] = [];
  private done = false;
  private readonly source: AsyncIterator<Row[]>;

  constructor(rows: AsyncIterable<Row[]>) {
    this.source = rows[Symbol.asyncIterator]();
  }

  async more(): Promise<boolean> {
    while (this.page.length === 0 && !this.done) {
      const next = await this.source.next();
      if (next.done) this.done = true;
      else this.page = next.value;
    }
    return this.page.length > 0;
  }

  async take(max: number): Promise<Row[] | null> {
    if (!(await this.more())) return null;
    const taken = this.page.length <= max ? this.page : this.page.slice(0, max);
    this.page = this.page.length <= max ? [] : this.page.slice(max);
    return taken;
  }

  /** Stops the source (a download whose client went away ends its query). */
  async close(): Promise<void> {
    if (!this.done) {
      this.done = true;
      await this.source.return?.();
    }
  }
}

async function* sheetXml<Row extends object>(columns: XlsxColumn<Row>[], pages: RowPages<Row>, dataRows: number): AsyncGenerator<string> {
  const letters = columns.map((_, index) => columnLetters(index));
  const widths = columns
    .map((column, index) => `<col min="${index + 1}" max="${index + 1}" width="${column.width ?? Math.max(12, column.header.length + 2)}" customWidth="1"/>`)
    .join("");
  const header = columns.map((column, index) => inlineString(`${letters[index]}1`, column.header, BOLD)).join("");
  yield `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/><cols>${widths}</cols><sheetData><row r="1" s="${BOLD}" customFormat="1">${header}</row>`;
  let rowNumber = 1;
  // At most `dataRows` rows under the header; the rest wait for the next sheet.
  for (;;) {
    const page = rowNumber - 1 < dataRows ? await pages.take(dataRows - (rowNumber - 1)) : null;
    if (page === null) break;
    const parts: string[] = [];
    for (const row of page) {
      rowNumber += 1;
      let cells = "";
      for (let index = 0; index < columns.length; index += 1) {
        const column = columns[index]!;
        cells += cellXml(column, `${letters[index]}${rowNumber}`, (row as Record<string, unknown>)[column.key]);
      }
      parts.push(`<row r="${rowNumber}">${cells}</row>`);
    }
    yield parts.join("");
  }
  yield "</sheetData></worksheet>";
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
  const rowsPerSheet = options.rowsPerSheet ?? XLSX_MAX_ROWS_PER_SHEET;
  if (!Number.isInteger(rowsPerSheet) || rowsPerSheet < 2 || rowsPerSheet > XLSX_MAX_ROWS_PER_SHEET)
    throw new RangeError(`rowsPerSheet must be 2 to ${XLSX_MAX_ROWS_PER_SHEET}`);
  async function* entries(): AsyncGenerator<ZipEntry> {
    const pages = new RowPages(rows);
    try {
      // zipStream writes each entry whole before it asks for the next, so the count is final below.
      let sheets = 0;
      do {
        sheets += 1;
        yield { name: `xl/worksheets/sheet${sheets}.xml`, content: sheetXml(columns, pages, rowsPerSheet - 1) };
      } while (await pages.more());
      yield { name: "[Content_Types].xml", content: [contentTypes(sheets)] };
      yield { name: "_rels/.rels", content: [ROOT_RELS] };
      yield { name: "xl/workbook.xml", content: [workbook(sheetNumbers(sheets).map((n) => sheetNameOf(sheetName, n)))] };
      yield { name: "xl/_rels/workbook.xml.rels", content: [workbookRels(sheets)] };
      yield { name: "xl/styles.xml", content: [STYLES] };
    } finally {
      await pages.close();
    }
  }
  const zip = zipStream(entries());
  // One chunk per pull and nothing queued ahead: the rows are read from the database only as
  // fast as the client takes the file, and a client that goes away stops the query (return()).
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await zip.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel() {
        await zip.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Response headers of a download named `<name>_<start>_<end>.xlsx`. */
export function xlsxHeaders(name: string, startDate: string, endDate: string): Record<string, string> {
  return {
    "Content-Type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "Content-Disposition": `attachment; filename="${name}_${startDate}_${endDate}.xlsx"`,
    "Cache-Control": "private, no-store",
  };
}
