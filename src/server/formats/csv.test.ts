import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import { beginsLikeFormula, type CsvValue, csvLine, csvWriter, formulaSafe } from "./csv";

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

// Whitespace a reader may trim before it looks for a formula: ASCII, line breaks, Unicode spaces, zero-width ones.
const LEADING_WHITESPACE = [
  " ",
  "  ",
  "\t",
  "\r",
  "\n",
  "\r\n",
  " \n\t ",
  "\u00a0",
  "\u1680",
  "\u2003",
  "\u2028",
  "\u202f",
  "\u3000",
  "\ufeff",
  "\u200b",
  "\u2060",
];

describe("formulaSafe", () => {
  it("is undone by taking one apostrophe off a prefixed cell, whatever apostrophes the text began with", () => {
    for (const text of ["=x", "'=x", "''=x", "-1", "'-1", "plain", "'plain", "", "@", " =x", "'\n+x", " plain"]) {
      const safe = formulaSafe(text);
      expect(beginsLikeFormula(text) ? safe.slice(1) : safe).toBe(text);
      expect(/^[\s\u200b\u2060]*[=+\-@\t\r]/.test(safe)).toBe(false);
    }
  });

  it("neutralises = + - @ after any leading whitespace, and leaves whitespace before other text alone", () => {
    for (const space of LEADING_WHITESPACE) {
      for (const start of ["=", "+", "-", "@"]) {
        const text = `${space}${start}1+1`;
        expect(formulaSafe(text), JSON.stringify(text)).toBe(`'${text}`);
        expect(csvLine([text]), JSON.stringify(text)).toBe(`"'${text}"\r\n`);
      }
      expect(formulaSafe(`${space}total`)).toBe(/^[\t\r]/.test(space) ? `'${space}total` : `${space}total`);
    }
    expect(formulaSafe("a =b")).toBe("a =b");
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
      [' =HYPERLINK("http://evil.example")', 1, "\n@SUM(A1)"],
      ["\r\n+cmd|' /C calc'!A0", 2, "\u00a0\u3000-2+3"],
    ];
    const file = path.join(dir, "read-back.csv");
    writeFileSync(file, await csvFile(["name", "amount", "note"], [rows]));
    const connection = await (await DuckDBInstance.create(":memory:")).connect();
    const read = (await connection.runAndReadAll(`SELECT * FROM read_csv('${file}', header = true)`)).getRowObjectsJS();
    const safe = (value: CsvValue | undefined) => (typeof value === "string" ? formulaSafe(value) : value);
    expect(read).toEqual(rows.map(([name, amount, note]) => ({ name: safe(name), amount, note: safe(note) })));
    // Every text cell that began like a formula reads back behind its apostrophe, whitespace kept.
    expect(read.slice(3).flatMap((row) => [row.name, row.note])).toEqual([
      `' =HYPERLINK("http://evil.example")`,
      "'\n@SUM(A1)",
      "'\r\n+cmd|' /C calc'!A0",
      "'\u00a0\u3000-2+3",
    ]);
  });
});
