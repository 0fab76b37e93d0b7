import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import { type CsvValue, csvLine, csvWriter, formulaSafe } from "./csv";

const dir = mkdtempSync(path.join(tmpdir(), "tally-csv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function csvFile(columns: string[], batches: CsvValue[][][]): Promise<string> {
  const chunks: Uint8Array[] = [];
  const writer = csvWriter(columns, (chunk) => void chunks.push(chunk));
  for (const batch of batches) await writer.write(batch);
  await writer.close();
  return Buffer.concat(chunks).toString("utf8");
}

describe("csvLine", () => {
  it("quotes fields with a comma, a quote or a line break (RFC 4180), ends lines with CRLF, and leaves null empty", () => {
    expect(csvLine(["plain", "a,b", 'say "hi"', "two\nlines", "cr\rhere", null, undefined, ""])).toBe(
      'plain,"a,b","say ""hi""","two\nlines","cr\rhere",,,\r\n',
    );
  });

  it("writes numbers as numbers: '.' as the decimal point, never an exponent, nothing for NaN or infinity", () => {
    expect(csvLine([0, -12.5, 1e20, 1.5e-7, 2e-7, 123456789.125, -0.000001, 0.1 + 0.2, Number.NaN, Number.POSITIVE_INFINITY])).toBe(
      "0,-12.5,100000000000000000000,0.00000015,0.0000002,123456789.125,-0.000001,0.30000000000000004,,\r\n",
    );
  });

  it("neutralises text a spreadsheet would run as a formula, quoted, and never a number", () => {
    expect(csvLine(["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tTab", "\rReturn", "a=b", "'=already", "''@twice", -5])).toBe(
      `"'=1+1","'+cmd","'-2+3","'@SUM(A1)","'\tTab","'\rReturn",a=b,"''=already","'''@twice",-5\r\n`,
    );
  });
});

describe("formulaSafe", () => {
  it("is undone by taking one apostrophe off a prefixed cell, whatever apostrophes the text began with", () => {
    for (const text of ["=x", "'=x", "''=x", "-1", "'-1", "plain", "'plain", "", "@"]) {
      const safe = formulaSafe(text);
      expect(/^'*[=+\-@\t\r]/.test(text) ? safe.slice(1) : safe).toBe(text);
      expect(/^[=+\-@\t\r]/.test(safe)).toBe(false);
    }
  });
});

describe("csvWriter", () => {
  it("writes the header once, before the first rows, and only the header for a file without rows", async () => {
    expect(await csvFile(["day", "name"], [])).toBe("day,name\r\n");
    expect(await csvFile(["day", "name"], [[["2026-11-01", "a"]], [], [["2026-11-02", "b"]]])).toBe("day,name\r\n2026-11-01,a\r\n2026-11-02,b\r\n");
  });

  it("writes nothing of a batch holding a row it cannot encode", async () => {
    const chunks: Uint8Array[] = [];
    const writer = csvWriter(["a"], (chunk) => void chunks.push(chunk));
    const noText = {
      toString() {
        throw new Error("this cell has no text");
      },
    };
    await expect(writer.write([["fine"], [noText as unknown as string]])).rejects.toThrow("this cell has no text");
    expect(chunks).toEqual([]);
  });

  it("writes files DuckDB reads back cell for cell, numbers typed as numbers", async () => {
    const rows: CsvValue[][] = [
      ['=HYPERLINK("http://evil.example")', -12.5, "a,b"],
      ["line\r\nbreak", 3, null],
      ["ünïcødé", 0.1, 'quote "inside"'],
    ];
    const file = path.join(dir, "read-back.csv");
    writeFileSync(file, await csvFile(["name", "amount", "note"], [rows]));
    const connection = await (await DuckDBInstance.create(":memory:")).connect();
    const read = (await connection.runAndReadAll(`SELECT * FROM read_csv('${file}', header = true)`)).getRowObjectsJS();
    expect(read).toEqual(rows.map(([name, amount, note]) => ({ name: formulaSafe(name as string), amount, note })));
  });
});
