// An XLSX file's document properties: a report's file names its range and time zone there, read
// back by exceljs, a reader Tally did not write.
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { type XlsxColumn, xlsxStream } from "./xlsx";

const COLUMNS: XlsxColumn<{ day: string }>[] = [{ header: "day", key: "day", kind: "date" }];
async function* oneRow() {
  yield [{ day: "2026-11-10" }];
}
const workbookOf = async (stream: ReadableStream<Uint8Array>) => {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(await new Response(stream).arrayBuffer());
  return workbook;
};

describe("an XLSX file's properties", () => {
  it("hold the title and description given, escaped, beside the rows", async () => {
    const properties = { title: "Daily, 2026-11-01 to 2026-11-30, America/Sao_Paulo", description: "Days are local dates in <America/Sao_Paulo> & more." };
    const workbook = await workbookOf(xlsxStream("Daily", COLUMNS, oneRow(), { properties }));
    expect(workbook.title).toBe(properties.title);
    expect(workbook.description).toBe(properties.description);
    expect(workbook.worksheets[0]!.getCell("A2").value).toEqual(new Date("2026-11-10T00:00:00Z"));
  });

  it("are left out when none are given", async () => {
    const workbook = await workbookOf(xlsxStream("Daily", COLUMNS, oneRow()));
    expect(workbook.title ?? "").toBe("");
    expect(workbook.worksheets[0]!.rowCount).toBe(2);
  });
});
