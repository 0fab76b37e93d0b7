// Text that looks like a formula in an XLSX file stays text: read back by exceljs as the very
// string written (never a formula), no <f> element in the sheet, and quotePrefix on its style so
// that a person editing the cell keeps it text.
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { readZipWithPython } from "@/testing/python-zip";
import { type XlsxColumn, xlsxStream } from "./xlsx";

interface Row {
  name: string;
  note: string;
}
const COLUMNS: XlsxColumn<Row>[] = [
  { header: "name", key: "name", kind: "text" },
  { header: "note", key: "note", kind: "text" },
];
const FORMULA_LIKE = ["=1+1", ' =HYPERLINK("http://evil.example")', "\n@SUM(A1)", "\r\n+cmd|' /C calc'!A0", "\u00a0\u3000-2+3", "\u200b=1"];

const bytesOf = async (stream: ReadableStream<Uint8Array>) => Buffer.from(await new Response(stream).arrayBuffer());

describe("xlsxStream and text that begins like a formula", () => {
  it("writes it as an inline string with quotePrefix, and plain text without", async () => {
    async function* pages() {
      yield FORMULA_LIKE.map((name) => ({ name, note: "plain" }));
    }
    const bytes = await bytesOf(xlsxStream("Rows", COLUMNS, pages(), { totals: () => ({ name: "=SUM(1)", note: "Total" }) }));
    const zip = readZipWithPython(bytes);
    const sheetXml = zip.entries["xl/worksheets/sheet1.xml"]!.text!;
    const stylesXml = zip.entries["xl/styles.xml"]!.text!;
    expect(sheetXml).not.toContain("<f>");
    const xfs = [...stylesXml.matchAll(/<xf [^>]*\/>/g)].map((match) => match[0]).slice(1);
    const styleOfCell = (ref: string) => Number(new RegExp(`<c r="${ref}"(?: s="(\\d+)")?`).exec(sheetXml)?.[1] ?? 0);
    for (let i = 0; i < FORMULA_LIKE.length; i++) {
      expect(xfs[styleOfCell(`A${i + 2}`)], JSON.stringify(FORMULA_LIKE[i])).toContain('quotePrefix="1"');
      expect(xfs[styleOfCell(`B${i + 2}`)]).not.toContain("quotePrefix");
    }
    // The totals row's formula-like text is bold and quoted.
    const totalStyle = xfs[styleOfCell(`A${FORMULA_LIKE.length + 2}`)]!;
    expect(totalStyle).toContain('quotePrefix="1"');
    expect(totalStyle).toContain('fontId="1"');
    expect(xfs[styleOfCell("A1")]).not.toContain("quotePrefix");

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet("Rows")!;
    FORMULA_LIKE.forEach((text, i) => {
      const cell = sheet.getCell(`A${i + 2}`);
      expect(cell.type, JSON.stringify(text)).toBe(ExcelJS.ValueType.String);
      expect(cell.value).toBe(text.replaceAll("\r\n", "\n"));
    });
  });
});
