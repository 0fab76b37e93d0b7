// CSV of the export's aggregated layouts: UTF-8, comma-separated, a header row, `.` as the decimal
// point, ISO dates (YYYY-MM-DD), empty for null, RFC 4180 quoting, CRLF line ends. Text that a
// spreadsheet would take for a formula is neutralised (formulaSafe).
import type { ByteSink, TableWriter } from "./table-writer";

/** A CSV cell: text, a number, or null (an empty field). */
export type CsvValue = string | number | null;

function number(value: number): string {
  if (!Number.isFinite(value)) return "";
  const plain = String(value);
  // Never exponent notation: spreadsheet and loader settings read it differently.
  return /e/i.test(plain) ? value.toFixed(20).replace(/0+$/, "").replace(/\.$/, "") : plain;
}

// A text cell a spreadsheet would run as a formula: one beginning with = + - @, a tab or a carriage
// return (OWASP, CSV injection), or with = + - @ after any whitespace, since readers that trim a
// field (Google Sheets' import, a loader's "trim spaces" option) leave the formula first. Any
// whitespace: line breaks, Unicode spaces (\s) and the zero-width ones \s leaves out. Apostrophes
// before such a start are counted in, so that a text that already begins '= gets one more and
// taking one apostrophe off always gives the text back.
const FORMULA_START = /^'*(?:[\t\r]|[\s\u180e\u200b-\u200d\u2060]*[=+\-@])/;

/** Whether a text cell begins like a formula (FORMULA_START); the XLSX writer marks such cells too. */
export const beginsLikeFormula = (text: string): boolean => FORMULA_START.test(text);

/**
 * A text cell as a spreadsheet shows it, never runs it: prefixed with a single quote when it
 * begins like a formula (the quote makes Excel, LibreOffice and Google Sheets treat it as text).
 * Numbers are not text: a negative number stays a number.
 */
export const formulaSafe = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

function field(value: CsvValue | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return number(value);
  const text = formulaSafe(value);
  // A neutralised cell is always quoted, as OWASP recommends: no reader splits or trims it.
  return text !== value || /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvLine = (values: readonly (CsvValue | undefined)[]) => `${values.map(field).join(",")}\r\n`;

/** A CSV file of `columns`: the header goes out with the first rows, or alone when the file ends without any. */
export function csvWriter(columns: readonly string[], sink: ByteSink): TableWriter<readonly CsvValue[]> {
  let headerWritten = false;
  const header = async () => {
    if (headerWritten) return;
    headerWritten = true;
    await sink(Buffer.from(csvLine(columns), "utf8"));
  };
  return {
    write: async (rows) => {
      // Encoded whole before anything is written: a row that cannot be encoded leaves no half batch behind.
      const text = rows.map(csvLine).join("");
      await header();
      await sink(Buffer.from(text, "utf8"));
    },
    close: header,
  };
}
