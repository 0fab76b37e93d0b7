import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { readZipWithPython } from "@/testing/python-zip";
import { XLSX_ROWS_PER_WRITE, type XlsxColumn, xlsxStream } from "./xlsx";
import { zipWriter } from "./zip";

interface Row {
  day: string;
  name: string;
  clicks: number;
}
const COLUMNS: XlsxColumn<Row>[] = [
  { header: "day", key: "day", kind: "date" },
  { header: "name", key: "name", kind: "text" },
  { header: "clicks", key: "clicks", kind: "number" },
];

const bytesOf = async (stream: ReadableStream<Uint8Array>) => Buffer.from(await new Response(stream).arrayBuffer());

describe("xlsxStream", () => {
  it("writes every page's rows with typed cells under a frozen header", async () => {
    async function* pages() {
      yield [{ day: "2026-11-10", name: "a", clicks: 1 }];
      yield [{ day: "2026-11-11", name: "b", clicks: 2.5 }];
      yield [
        { day: "2026-11-12", name: 'Tom & "Jerry" <co>\u0001', clicks: 0 },
        { day: "2026-11-13", name: null as unknown as string, clicks: 3 },
      ];
    }
    const bytes = await bytesOf(xlsxStream("Rows", COLUMNS, pages()));
    // Every part is there, each with the CRC of its bytes (Python's zipfile checks them).
    const zip = readZipWithPython(bytes);
    expect(zip.badCrc).toBeNull();
    expect([...zip.names].sort()).toEqual(
      ["[Content_Types].xml", "_rels/.rels", "xl/_rels/workbook.xml.rels", "xl/styles.xml", "xl/workbook.xml", "xl/worksheets/sheet1.xml"].sort(),
    );
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
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

interface Numbered {
  n: number;
  label: string;
}
const NUMBERED: XlsxColumn<Numbered>[] = [
  { header: "n", key: "n", kind: "number" },
  { header: "label", key: "label", kind: "text" },
];

/** Rows 1..count in pages of the given sizes (repeated), counting how far the reader pulled and whether it stopped the source. */
function numbered(count: number, pageSizes: number[]) {
  const state = { pulled: 0, closed: false };
  async function* pages() {
    try {
      for (let next = 1, i = 0; next <= count; i += 1) {
        const size = Math.min(pageSizes[i % pageSizes.length]!, count - next + 1);
        const page = Array.from({ length: size }, (_, k) => ({ n: next + k, label: `row ${next + k}` }));
        next += size;
        state.pulled += size;
        yield page;
      }
    } finally {
      state.closed = true;
    }
  }
  return { pages: pages(), state };
}

/** Each sheet's name and rows (header first), as exceljs reads the file. */
async function sheetsOf(bytes: Buffer): Promise<{ name: string; rows: unknown[][]; frozen: boolean }[]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook.worksheets.map((sheet) => {
    const rows: unknown[][] = [];
    sheet.eachRow({ includeEmpty: true }, (row) => void rows.push((row.values as unknown[]).slice(1)));
    return { name: sheet.name, rows, frozen: sheet.views[0]?.state === "frozen" && sheet.views[0]?.ySplit === 1 };
  });
}

describe("xlsxStream past a sheet's row limit", () => {
  const header = ["n", "label"];
  const rowOf = (n: number) => [n, `row ${n}`];
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => rowOf(from + i));

  it("continues on new sheets with the header repeated, every row once and in order", async () => {
    // 3 data rows a sheet; pages of 2, 5 and 3 rows straddle the sheets' ends.
    const { pages } = numbered(10, [2, 5, 3]);
    const sheets = await sheetsOf(await bytesOf(xlsxStream("Campaigns", NUMBERED, pages, { rowsPerSheet: 4 })));
    expect(sheets.map((s) => s.name)).toEqual(["Campaigns", "Campaigns (2)", "Campaigns (3)", "Campaigns (4)"]);
    expect(sheets.map((s) => s.rows)).toEqual([
      [header, ...range(1, 3)],
      [header, ...range(4, 6)],
      [header, ...range(7, 9)],
      [header, ...range(10, 10)],
    ]);
    expect(sheets.every((s) => s.frozen)).toBe(true);
  });

  it("adds no empty sheet when the rows end exactly at a sheet's end, and keeps a header-only sheet for no rows", async () => {
    const full = await sheetsOf(await bytesOf(xlsxStream("Ads", NUMBERED, numbered(9, [4]).pages, { rowsPerSheet: 4 })));
    expect(full.map((s) => [s.name, s.rows.length])).toEqual([
      ["Ads", 4],
      ["Ads (2)", 4],
      ["Ads (3)", 4],
    ]);
    expect(full.flatMap((s) => s.rows.slice(1))).toEqual(range(1, 9));
    const none = await sheetsOf(await bytesOf(xlsxStream("Ads", NUMBERED, numbered(0, [4]).pages, { rowsPerSheet: 4 })));
    expect(none).toEqual([{ name: "Ads", rows: [header], frozen: true }]);
  });

  it("names later sheets within Excel's 31 characters", async () => {
    const name = "A report name that is far too long for a sheet";
    const sheets = await sheetsOf(await bytesOf(xlsxStream(name, NUMBERED, numbered(3, [3]).pages, { rowsPerSheet: 2 })));
    expect(sheets.map((s) => s.name)).toEqual([name.slice(0, 31), `${name.slice(0, 27)} (2)`, `${name.slice(0, 27)} (3)`]);
  });

  it("stops pulling rows when the client goes away", async () => {
    const { pages, state } = numbered(1_000_000, [1000]);
    const reader = xlsxStream("Rows", NUMBERED, pages, { rowsPerSheet: 10 }).getReader();
    while (state.pulled === 0) await reader.read();
    await reader.read();
    await reader.cancel();
    expect(state.closed).toBe(true);
    expect(state.pulled).toBeLessThan(10_000);
  });

  it("errors the download in words, and stops the rows, when the file would pass what a ZIP without ZIP64 holds", async () => {
    // The limits of zip.ts, made small: the same check that refuses a sheet past 4 GiB.
    const { pages, state } = numbered(100_000, [100]);
    const small = (sink: Parameters<typeof zipWriter>[0]) => zipWriter(sink, { limits: { entries: 65_535, bytes: 50_000 } });
    await expect(bytesOf(xlsxStream("Rows", NUMBERED, pages, { zip: small }))).rejects.toThrow(
      /^entry xl\/worksheets\/sheet1\.xml is more than 50,000 bytes: a ZIP file without ZIP64 holds at most 65,535 entries/,
    );
    expect(state.closed).toBe(true);
    expect(state.pulled).toBeLessThan(2_000);
  });

  // A million rows written and read back by Python took 7 to 13 s on a 2-core machine running
  // other work, past the 5 s default: the timeout bounds a hang, it does not time the writer.
  it("holds 1,048,576 rows on a sheet by default, header included", { timeout: 60_000 }, async () => {
    const { pages } = numbered(1_048_576, [50_000]);
    const columns: XlsxColumn<Numbered>[] = [{ header: "n", key: "n", kind: "number" }];
    const zip = readZipWithPython(await bytesOf(xlsxStream("Rows", columns, pages)));
    expect(zip.badCrc).toBeNull();
    const first = zip.entries["xl/worksheets/sheet1.xml"]!;
    const second = zip.entries["xl/worksheets/sheet2.xml"]!;
    expect(first.rows).toBe(1_048_576);
    expect(first.tail.endsWith('<row r="1048576"><c r="A1048576" s="2"><v>1048575</v></c></row></sheetData></worksheet>')).toBe(true);
    // The one row left: on the second sheet, under its own header.
    expect(second.text).toContain('<row r="2"><c r="A2" s="2"><v>1048576</v></c></row></sheetData>');
    expect(second.rows).toBe(2);
    expect(zip.entries["xl/workbook.xml"]!.text).toContain('<sheet name="Rows" sheetId="1" r:id="rId1"/><sheet name="Rows (2)" sheetId="2" r:id="rId2"/>');
  });
});

describe("xlsxStream's formats", () => {
  interface Figures {
    day: string;
    at: string;
    name: string;
    impressions: number;
    roas: number;
    spend: number;
    wallet: number;
    currency: string;
    ctr: number;
  }
  const FIGURES: XlsxColumn<Figures>[] = [
    { header: "Day", key: "day", kind: "date" },
    { header: "At", key: "at", kind: "datetime" },
    { header: "Name", key: "name", kind: "text" },
    { header: "Impressions", key: "impressions", kind: "integer" },
    { header: "ROAS", key: "roas", kind: "number" },
    { header: "Spend", key: "spend", kind: "money", currency: "EUR" },
    { header: "Wallet", key: "wallet", kind: "money", currency: "EUR", currencyKey: "currency" },
    { header: "CTR", key: "ctr", kind: "percent" },
  ];
  const row = (name: string, currency: string): Figures => ({
    day: "2026-11-10",
    at: "2026-11-10T13:45:00.000Z",
    name,
    impressions: 1234567,
    roas: 83.5,
    spend: 1234.5,
    wallet: 10,
    currency,
    ctr: 0.0123,
  });

  it("gives each kind its number format, money its currency, a bold totals row, and widths from the content", async () => {
    async function* pages() {
      yield [row("a name of thirty characters ab", "USD"), row("b", "GBP")];
    }
    const totals = { day: "Total", impressions: 2469134, spend: 2469, ctr: 0.5 };
    const bytes = await bytesOf(xlsxStream("Figures", FIGURES, pages(), { totals: () => totals }));
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet("Figures")!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(FIGURES.map((c) => c.header));
    expect([2, 3].map((n) => sheet.getRow(n).getCell(2).value)).toEqual([new Date("2026-11-10T13:45:00Z"), new Date("2026-11-10T13:45:00Z")]);
    expect(["A", "B", "C", "D", "E", "F", "G", "H"].map((c) => sheet.getCell(`${c}2`).numFmt ?? null)).toEqual([
      "yyyy-mm-dd",
      "yyyy-mm-dd hh:mm",
      null,
      "#,##0",
      "#,##0.00",
      '"EUR "#,##0.00',
      '"USD "#,##0.00',
      "0.00%",
    ]);
    // The row's own currency wins over the column's.
    expect(sheet.getCell("G3").numFmt).toBe('"GBP "#,##0.00');
    expect(sheet.getCell("F2").value).toBe(1234.5);
    // The totals row: bold, each cell in its column's format, blank where no total was given.
    const total = sheet.getRow(4);
    expect(sheet.rowCount).toBe(4);
    expect((total.values as unknown[]).slice(1)).toEqual(["Total", undefined, undefined, 2469134, undefined, 2469, undefined, 0.5]);
    expect(total.getCell(1).font?.bold).toBe(true);
    expect(total.getCell(4).font?.bold).toBe(true);
    expect(total.getCell(4).numFmt).toBe("#,##0");
    expect(total.getCell(8).numFmt).toBe("0.00%");
    expect(sheet.getRow(2).getCell(4).font?.bold).toBeFalsy();
    // Widths: the longest shown value or header plus a margin, at least 8.
    expect(sheet.columns.map((c) => c.width)).toEqual([12, 18, 32, 13, 8, 14, 11, 8]);
  });

  it("bounds a column's width, and puts the totals under a header when the rows filled the last sheet", async () => {
    async function* pages() {
      yield [{ n: 1, label: "x".repeat(500) }];
    }
    const bytes = await bytesOf(xlsxStream("Rows", NUMBERED, pages(), { rowsPerSheet: 2, totals: () => ({ label: "Total", n: 1 }) }));
    const sheets = await sheetsOf(bytes);
    expect(sheets.map((s) => s.rows)).toEqual([
      [
        ["n", "label"],
        [1, "x".repeat(500)],
      ],
      [
        ["n", "label"],
        [1, "Total"],
      ],
    ]);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    expect(workbook.worksheets[0]!.columns.map((c) => c.width)).toEqual([8, 60]);
  });
});

describe("a large batch of rows", () => {
  it("reaches the archive as the XML of at most XLSX_ROWS_PER_WRITE rows at a time, every row in the file", async () => {
    const rowsPerWrite: number[] = [];
    const counting = (sink: Parameters<typeof zipWriter>[0]) => {
      const zip = zipWriter(sink);
      return {
        ...zip,
        write: (content: string | Uint8Array) => {
          if (typeof content === "string") rowsPerWrite.push(content.split("<row ").length - 1);
          return zip.write(content);
        },
      };
    };
    const batch = Array.from({ length: 2_000 }, (_, i) => ({ day: "2026-11-10", name: `row ${i}`, clicks: i }));
    async function* pages() {
      yield batch;
    }
    const bytes = await bytesOf(xlsxStream("Rows", COLUMNS, pages(), { zip: counting }));
    const dataWrites = rowsPerWrite.filter((rows) => rows > 0);
    expect(Math.max(...dataWrites)).toBe(XLSX_ROWS_PER_WRITE);
    // The header row goes with the sheet's start.
    expect(dataWrites.reduce((sum, rows) => sum + rows, 0)).toBe(2_001);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet("Rows")!;
    expect(sheet.rowCount).toBe(2_001);
    expect(sheet.getRow(2_001).getCell(2).value).toBe("row 1999");
  });
});
