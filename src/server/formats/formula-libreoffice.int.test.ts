// CSV and XLSX cells that begin like a formula, opened by a spreadsheet Tally did not write:
// LibreOffice converts each file to CSV of the values it shows. It runs a formula in a CSV cell
// (the unguarded control file shows 2 for =1+1); Tally's files show every such cell as text.
// Skipped where soffice is missing, failed in CI (which installs it: .ci/run).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { csvLine } from "./csv";
import { xlsxStream } from "./xlsx";

const soffice = (process.env.PATH ?? "").split(path.delimiter).find((dir) => dir && existsSync(path.join(dir, "soffice")));
const inCi = Boolean(process.env.CI);
const CELLS = ["=1+1", " =2+2", "  +5+6", "\t-3+4", "\u00a0@SUM(1;2)", "\u3000=7*6", "=A1"];

describe.skipIf(!soffice && !inCi)("formula-like cells in LibreOffice", () => {
  const work = mkdtempSync(path.join(tmpdir(), "tally-formula-libreoffice-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Each file's cells as LibreOffice shows them, one line each. */
  async function shown(files: string[], csvIn: boolean): Promise<string[][]> {
    if (!soffice) throw new Error("soffice is missing: CI installs libreoffice-calc-nogui (.ci/run)");
    const out = path.join(work, "out");
    await promisify(execFile)(
      "soffice",
      [
        `-env:UserInstallation=file://${path.join(work, "profile")}`,
        "--headless",
        // CSV files are read as UTF-8 (LibreOffice would guess a character set).
        ...(csvIn ? ["--infilter=CSV:44,34,UTF8"] : []),
        "--convert-to",
        "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true",
        "--outdir",
        out,
        ...files,
      ],
      { timeout: 170_000 },
    );
    return files.map((file) =>
      readFileSync(path.join(out, `${path.parse(file).name}.csv`), "utf8")
        .split(/\r?\n/)
        .slice(1, CELLS.length + 1),
    );
  }

  it("shows each as its text, where the same cells unguarded run", { timeout: 180_000 }, async () => {
    const control = path.join(work, "control.csv");
    writeFileSync(control, `cell\r\n${CELLS.map((cell) => `${cell}\r\n`).join("")}`);
    const guarded = path.join(work, "guarded.csv");
    writeFileSync(guarded, `cell\r\n${CELLS.map((cell) => csvLine([cell])).join("")}`);
    const workbook = path.join(work, "sheet.xlsx");
    async function* rows() {
      yield CELLS.map((cell) => ({ cell }));
    }
    writeFileSync(workbook, Buffer.from(await new Response(xlsxStream("Cells", [{ header: "cell", key: "cell", kind: "text" }], rows())).arrayBuffer()));

    const [fromControl, fromCsv] = await shown([control, guarded], true);
    const [fromXlsx] = await shown([workbook], false);
    // The reader runs formulas: the control's first cell is computed.
    expect(fromControl![0]).toBe("2");
    // Tally's CSV: every cell text behind its apostrophe, nothing computed.
    expect(fromCsv!.map((line) => line.replace(/^"|"$/g, ""))).toEqual(CELLS.map((cell) => `'${cell}`));
    // Tally's XLSX: every cell the very text written.
    expect(fromXlsx!.map((line) => line.replace(/^"|"$/g, ""))).toEqual(CELLS);
  });
});
