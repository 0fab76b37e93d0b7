import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { xlsxStream, type XlsxColumn } from "./xlsx";

interface Row {
  day: string;
  name: string;
  clicks: number;
}
const COLUMNS: XlsxColumn<Row>[] = [
  { header: "day", key: "day", type: "date" },
  { header: "name", key: "name", type: "text" },
  { header: "clicks", key: "clicks", type: "number" },
];

const bytesOf = async (stream: ReadableStream<Uint8Array>) => Buffer.from(await new Response(stream).arrayBuffer());

describe("xlsxStream", () => {
  it("writes every page's rows with typed cells under a frozen header", async () => {
    async function* pages() {
      yield [{ day: "2026-11-10", name: "a", clicks: 1 }];
      yield [{ day: "2026-11-11", name: "b", clicks: 2.5 }];
      yield [{ day: "2026-11-12", name: 'Tom & "Jerry" <co>\u0001', clicks: 0 }, { day: "2026-11-13", name: null as unknown as string, clicks: 3 }];
    }
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await bytesOf(xlsxStream("Rows", COLUMNS, pages()))) as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet("Rows")!;
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    expect(sheet.getRow(1).font).toMatchObject({ bold: true });
    expect((sheet.getRow(3).values as unknown[]).slice(1)).toEqual([new Date("2026-11-11T00:00:00Z"), "b", 2.5]);
    // Markup characters are escaped, characters XML cannot hold are dropped, null leaves the cell empty.
    expect((sheet.getRow(4).values as unknown[]).slice(1)).toEqual([new Date("2026-11-12T00:00:00Z"), 'Tom & "Jerry" <co>', 0]);
    expect(sheet.getRow(5).getCell(2).value).toBeNull();
    expect(sheet.getCell("A2").numFmt).toBe("yyyy-mm-dd");
    expect(sheet.rowCount).toBe(5);
  });

  it("errors the stream when a page cannot be read, rather than ending a file that looks complete", async () => {
    async function* pages() {
      yield [{ day: "2026-11-10", name: "a", clicks: 1 }];
      throw new Error("database went away");
    }
    await expect(bytesOf(xlsxStream("Rows", COLUMNS, pages()))).rejects.toThrow();
  });
});
