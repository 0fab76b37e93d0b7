// XLSX downloads of the report routes (decisions §5): every matching row, numbers as numbers,
// dates as dates, a bold and frozen header row. The sheet's XML is written row by row into a
// streaming ZIP, batch by batch as the rows arrive, so memory stays bounded however many rows a
// report has. Written by hand rather than with exceljs's streaming writer, which took six times
// as long on the same 100,000 rows (npm run bench:xlsx; docs/decisions.md); exceljs
// reads the files back in the tests.
import { zipStream } from "./streaming-zip";

export interface XlsxColumn<Row> {
  header: string;
  key: keyof Row & string;
  type: "text" | "number" | "date";
  width?: number;
}

// Style indexes of styles.xml's cellXfs: 0 plain, 1 bold (the header), 2 a yyyy-mm-dd date.
const BOLD = 1;
const DATE = 2;

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;

const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

const workbook = (sheetName: string) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="${escapeXml(sheetName)}" sheetId="1" r:id="rId1"/></sheets></workbook>`;

// Characters XML 1.0 does not allow at all; they are dropped rather than making the file unreadable.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

// eslint-disable-next-line no-control-regex
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

async function* sheetXml<Row extends object>(columns: XlsxColumn<Row>[], rows: AsyncIterable<Row[]>): AsyncGenerator<string> {
  const letters = columns.map((_, index) => columnLetters(index));
  const widths = columns
    .map((column, index) => `<col min="${index + 1}" max="${index + 1}" width="${column.width ?? Math.max(12, column.header.length + 2)}" customWidth="1"/>`)
    .join("");
  const header = columns.map((column, index) => inlineString(`${letters[index]}1`, column.header, BOLD)).join("");
  yield `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/><cols>${widths}</cols><sheetData><row r="1" s="${BOLD}" customFormat="1">${header}</row>`;
  let rowNumber = 1;
  for await (const page of rows) {
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
export function xlsxStream<Row extends object>(sheetName: string, columns: XlsxColumn<Row>[], rows: AsyncIterable<Row[]>): ReadableStream<Uint8Array> {
  const zip = zipStream([
    { name: "[Content_Types].xml", content: [CONTENT_TYPES] },
    { name: "_rels/.rels", content: [ROOT_RELS] },
    { name: "xl/workbook.xml", content: [workbook(sheetName)] },
    { name: "xl/_rels/workbook.xml.rels", content: [WORKBOOK_RELS] },
    { name: "xl/styles.xml", content: [STYLES] },
    { name: "xl/worksheets/sheet1.xml", content: sheetXml(columns, rows) },
  ]);
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
