// The styles part of an XLSX file and the cell styles its sheets point at: one number format per
// column kind (a money column's shows its currency code), each plain or bold (the header and the
// totals row). Styles are numbered as the sheets first ask for them and styles.xml is written
// after the sheets (xlsx.ts), so a currency met only on a later row still gets its format.

/** What a column holds, and so how its cells are stored and shown (docs/reports.md, "XLSX columns"). */
export type XlsxKind = "text" | "integer" | "number" | "money" | "percent" | "date" | "datetime";

export const XLSX_KINDS = ["text", "integer", "number", "money", "percent", "date", "datetime"] as const satisfies readonly XlsxKind[];

/** An ISO 4217 code: three capital letters, so it can sit inside a format code without escaping. */
export const CURRENCY_CODE = /^[A-Z]{3}$/;

/** The format code of a kind; "General" for text. */
export function formatCode(kind: XlsxKind, currency?: string | null): string {
  switch (kind) {
    case "integer":
      return "#,##0";
    case "number":
      return "#,##0.00";
    case "money":
      return currency && CURRENCY_CODE.test(currency) ? `"${currency} "#,##0.00` : "#,##0.00";
    case "percent":
      return "0.00%";
    case "date":
      return "yyyy-mm-dd";
    case "datetime":
      return "yyyy-mm-dd hh:mm";
    default:
      return "General";
  }
}

/** Where custom number formats start: ids below are Excel's built-in ones. */
const FIRST_CUSTOM_FORMAT = 164;

const escapeAttribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

/** The cell styles of one file, numbered as they are first asked for: 0 is plain, 1 bold. */
export class XlsxStyles {
  private readonly formats = new Map<string, number>();
  private readonly xfs = new Map<string, number>();
  private readonly order: { formatId: number; bold: boolean; quotePrefix?: boolean }[] = [];

  constructor() {
    this.style("text", null, false);
    this.style("text", null, true);
  }

  /** The style index of a kind's cells (plain or bold), added to the file the first time. */
  style(kind: XlsxKind, currency: string | null | undefined, bold: boolean): number {
    const code = formatCode(kind, currency);
    let formatId = code === "General" ? 0 : this.formats.get(code);
    if (formatId === undefined) {
      formatId = FIRST_CUSTOM_FORMAT + this.formats.size;
      this.formats.set(code, formatId);
    }
    const key = `${formatId}:${bold ? 1 : 0}`;
    let index = this.xfs.get(key);
    if (index === undefined) {
      index = this.order.length;
      this.order.push({ formatId, bold });
      this.xfs.set(key, index);
    }
    return index;
  }

  /**
   * The style of a text cell that begins like a formula (csv.ts beginsLikeFormula), added the first
   * time: quotePrefix, Excel's apostrophe, which keeps the cell text when a person edits it
   * (an inline string is never run as it is read, but re-entering it would run it).
   */
  quotedText(bold: boolean): number {
    const key = `quoted:${bold ? 1 : 0}`;
    let index = this.xfs.get(key);
    if (index === undefined) {
      index = this.order.length;
      this.order.push({ formatId: 0, bold, quotePrefix: true });
      this.xfs.set(key, index);
    }
    return index;
  }

  xml(): string {
    const formats = [...this.formats].map(([code, id]) => `<numFmt numFmtId="${id}" formatCode="${escapeAttribute(code)}"/>`).join("");
    const xfs = this.order
      .map(
        ({ formatId, bold, quotePrefix }) =>
          `<xf numFmtId="${formatId}" fontId="${bold ? 1 : 0}" fillId="0" borderId="0" xfId="0"${formatId ? ' applyNumberFormat="1"' : ""}${bold ? ' applyFont="1"' : ""}${quotePrefix ? ' quotePrefix="1"' : ""}/>`,
      )
      .join("");
    return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${this.formats.size ? `<numFmts count="${this.formats.size}">${formats}</numFmts>` : ""}<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="${this.order.length}">${xfs}</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;
  }
}

/** Most characters a column is made wide for, and least: long texts wrap out of view rather than widen the sheet. */
export const MIN_WIDTH = 8;
export const MAX_WIDTH = 60;

const grouped = (digits: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/** How many characters a value takes as its kind's format shows it: what a column's width is made from. */
export function shownLength(kind: XlsxKind, value: unknown, currency?: string | null): number {
  if (value === null || value === undefined) return 0;
  if (typeof value !== "number" || !Number.isFinite(value)) return kind === "date" ? 10 : kind === "datetime" ? 16 : String(value).length;
  switch (kind) {
    case "integer":
      return grouped(Math.round(Math.abs(value)).toString()).length + (value < 0 ? 1 : 0);
    case "number":
    case "money":
      return grouped(Math.abs(value).toFixed(2)).length + (value < 0 ? 1 : 0) + (kind === "money" && currency ? currency.length + 1 : 0);
    case "percent":
      return (value * 100).toFixed(2).length + 1;
    default:
      return String(value).length;
  }
}

/** A column's width in characters: its header's and its widest value's, with a margin, within MIN_WIDTH..MAX_WIDTH. */
export const columnWidth = (longest: number) => Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, longest + 2));
