// CSV of the aggregated layouts: UTF-8, comma-separated, a header row, `.` as the decimal point,
// ISO dates (YYYY-MM-DD), empty for null, RFC 4180 quoting, CRLF line ends.
import type { CsvValue } from "./layouts";

function number(value: number): string {
  if (!Number.isFinite(value)) return "";
  const plain = String(value);
  // Never exponent notation: spreadsheet and loader settings read it differently.
  return /e/i.test(plain) ? value.toFixed(20).replace(/0+$/, "").replace(/\.$/, "") : plain;
}

function field(value: CsvValue | undefined): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "number" ? number(value) : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvLine = (values: readonly (CsvValue | undefined)[]) => `${values.map(field).join(",")}\r\n`;
