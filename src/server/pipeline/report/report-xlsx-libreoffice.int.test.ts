// A report's XLSX file as a person's spreadsheet shows it: LibreOffice converts the campaigns
// download to CSV with "save cell contents as shown", so each cell reads as its number format
// makes it look ("12.34%", "USD 1,234.50"), and those figures must be the JSON route's, within
// what the format rounds away. LibreOffice is a reader Tally did not write. CI installs it
// (.ci/run); elsewhere the test is skipped where soffice is missing, and fails in CI.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAMPAIGN_LISTING } from "@/server/pipeline/report/report-definitions";
import { handleCampaignListing } from "@/testing/api/checked-report-routes";
import { get, RANGE, seedAcme } from "@/testing/report-fixture";

const soffice = (process.env.PATH ?? "").split(path.delimiter).find((dir) => dir && existsSync(path.join(dir, "soffice")));
const inCi = Boolean(process.env.CI);

/** Fields of a CSV line as LibreOffice writes them (comma, double quotes doubled inside quoted fields). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quoted && c === '"' && line[i + 1] === '"') {
      field += '"';
      i += 1;
    } else if (c === '"') quoted = !quoted;
    else if (c === "," && !quoted) {
      fields.push(field);
      field = "";
    } else field += c;
  }
  fields.push(field);
  return fields;
}

const figure = (shown: string) =>
  Number(
    shown
      .replace(/^[A-Z]{3} /, "")
      .replace(/%$/, "")
      .replaceAll(",", ""),
  );

describe.skipIf(!soffice && !inCi)("a report's XLSX file in LibreOffice", () => {
  const work = mkdtempSync(path.join(tmpdir(), "tally-xlsx-libreoffice-"));
  let advertiserKey: string;

  beforeAll(async () => {
    ({ advertiserKey } = await seedAcme());
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("shows percentages and money in their formats, and the JSON route's figures", { timeout: 180_000 }, async () => {
    if (!soffice) throw new Error("soffice is missing: CI installs libreoffice-calc-nogui (.ci/run)");
    const response = await handleCampaignListing(
      new Request(`http://tally.test/campaign/v2?${RANGE}&download=true`, { headers: { Authorization: `Bearer ${advertiserKey}` } }),
    );
    expect(response.status).toBe(200);
    const file = path.join(work, "campaigns.xlsx");
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    // A profile of its own, so runs side by side never share one.
    await promisify(execFile)(
      "soffice",
      [
        `-env:UserInstallation=file://${path.join(work, "profile")}`,
        "--headless",
        "--convert-to",
        "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true",
        "--outdir",
        work,
        file,
      ],
      { timeout: 170_000 },
    );
    const lines = readFileSync(path.join(work, "campaigns.csv"), "utf8").split(/\r?\n/).filter(Boolean);
    const [header, ...body] = lines.map(csvFields);
    const columns = CAMPAIGN_LISTING.columns;
    expect(header).toEqual(columns.map((c) => c.header));

    const json = (await get(advertiserKey, RANGE)).body.data;
    expect(json.length).toBeGreaterThan(0);
    expect(body).toHaveLength(json.length + 1);
    const shown = (row: number, field: string) => body[row]![columns.findIndex((c) => c.key === field)]!;
    json.forEach((row, r) => {
      for (const column of columns) {
        const value = row[column.key];
        const cell = shown(r, column.key);
        if (value === null) expect(cell, column.key).toBe("");
        else if (column.kind === "text" || column.kind === "date") expect(cell, column.key).toBe(String(value));
        else if (column.kind === "integer") expect(cell, column.key).toBe((value as number).toLocaleString("en-US"));
        else if (column.kind === "percent") {
          expect(cell, column.key).toMatch(/^-?[\d,]+\.\d{2}%$/);
          expect(figure(cell) / 100, column.key).toBeCloseTo(value as number, 4);
        } else if (column.kind === "money") {
          expect(cell, column.key).toMatch(/^-?USD [\d,]+\.\d{2}$/);
          expect(figure(cell), column.key).toBeCloseTo(value as number, 2);
        } else {
          expect(cell, column.key).toMatch(/^-?[\d,]+\.\d{2}$/);
          expect(figure(cell), column.key).toBeCloseTo(value as number, 2);
        }
      }
    });
    // The data holds figures these formats show: a CTR above zero, spend above zero.
    const withClicks = json.findIndex((row) => (row.ctr as number) > 0);
    expect(withClicks).toBeGreaterThanOrEqual(0);
    expect(shown(withClicks, "ctr")).not.toBe("0.00%");
    expect(json.some((row, r) => (row.ad_revenue as number) > 0 && shown(r, "ad_revenue").startsWith("USD "))).toBe(true);

    // The totals row: counts summed, CTR from the sums.
    const totals = json.length;
    const sum = (field: string) => json.reduce((n, row) => n + (row[field] as number), 0);
    expect(shown(totals, "campaign_id")).toBe("Total");
    expect(shown(totals, "impressions_total")).toBe(sum("impressions_total").toLocaleString("en-US"));
    expect(figure(shown(totals, "ctr")) / 100).toBeCloseTo(sum("clicks_total") / sum("impressions_total"), 4);
    expect(figure(shown(totals, "ad_revenue"))).toBeCloseTo(sum("ad_revenue"), 2);
  });
});
