// POST /dashboard/table-file: a signed-in session's table comes back as CSV and XLSX holding what
// was sent, read by readers Tally did not write (exceljs, and a CSV parse written here).
import ExcelJS from "exceljs";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { handleTableFile } from "./table-file-route";

let session: string;

beforeAll(async () => {
  await createUser({ email: "staff@table-file.test", name: "Staff", password: "correct horse battery", role: "staff" });
  ({ token: session } = await signIn("staff@table-file.test", "correct horse battery"));
});

const COLUMNS = [
  { label: "Campaign", kind: "text" },
  { label: "Impressions", kind: "integer" },
  { label: "ROAS", kind: "number" },
  { label: "Spend", kind: "money", currency: "EUR" },
  { label: "CTR", kind: "percent" },
  { label: "Day", kind: "date" },
  { label: "Updated", kind: "datetime" },
];
const ROWS = [
  ['Winter, "sale"', 1234567, 83.5, 1234.5, 0.0123, "2026-11-10", "2026-11-10T13:45:00.000Z"],
  ["=cmd", 0, 0, 0, 0, "2026-11-11", null],
  ["Ünïcode ☕", 3, null, 12.25, 1, "2026-11-12", "2026-11-12T00:00:00.000Z"],
];
const TOTALS = ["Total", 1234570, 2.1, 1246.75, 0.5, null, null];

const post = (body: unknown, headers: Record<string, string> = { Cookie: `tally_session=${session}` }) =>
  handleTableFile(
    new Request("http://tally.test/dashboard/table-file", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );

const table = (over: Record<string, unknown> = {}) => ({
  format: "xlsx",
  name: "campaigns_2026-11",
  sheet: "Campaigns",
  columns: COLUMNS,
  rows: ROWS,
  totals: TOTALS,
  ...over,
});

/** RFC 4180 fields, quotes and all: enough to read back what the CSV writer wrote. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i += 1;
    } else if (quoted && c === '"') quoted = false;
    else if (quoted) field += c;
    else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i += 1;
    } else field += c;
  }
  return records;
}

describe("POST /dashboard/table-file", () => {
  it("answers an XLSX file holding the values sent, each column in its kind's format, the header frozen and the totals bold", async () => {
    const response = await post(table());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="campaigns_2026-11.xlsx"');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await response.arrayBuffer());
    const sheet = workbook.getWorksheet("Campaigns")!;
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(COLUMNS.map((c) => c.label));
    expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
    const asSent = (values: (string | number | null)[]) =>
      values.map((value, c) =>
        value === null ? null : COLUMNS[c]!.kind === "date" ? new Date(`${value}T00:00:00Z`) : COLUMNS[c]!.kind === "datetime" ? new Date(value) : value,
      );
    const read = (n: number) => COLUMNS.map((_, c) => sheet.getRow(n).getCell(c + 1).value ?? null);
    expect([2, 3, 4].map(read)).toEqual(ROWS.map(asSent));
    expect(read(5)).toEqual(asSent(TOTALS));
    expect(sheet.rowCount).toBe(5);
    expect(COLUMNS.map((_, c) => sheet.getRow(2).getCell(c + 1).numFmt ?? null)).toEqual([
      null,
      "#,##0",
      "#,##0.00",
      '"EUR "#,##0.00',
      "0.00%",
      "yyyy-mm-dd",
      "yyyy-mm-dd hh:mm",
    ]);
    expect(COLUMNS.map((_, c) => sheet.getRow(5).getCell(c + 1).font?.bold ?? false)).toEqual(COLUMNS.map(() => true));
    expect(sheet.getRow(5).getCell(4).numFmt).toBe('"EUR "#,##0.00');
    expect(sheet.getRow(2).getCell(2).font?.bold).toBeFalsy();
  });

  it("answers a CSV file of the raw values, header first and totals last", async () => {
    const response = await post(table({ format: "csv", sheet: undefined }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="campaigns_2026-11.csv"');
    const records = parseCsv(Buffer.from(await response.arrayBuffer()).toString("utf8"));
    expect(records[0]).toEqual(COLUMNS.map((c) => c.label));
    // Text a spreadsheet would run as a formula is kept as text, behind an apostrophe.
    const sent = [...ROWS, TOTALS].map((row) => row.map((value) => (value === null ? "" : value === "=cmd" ? "'=cmd" : String(value))));
    expect(records.slice(1)).toEqual(sent);
  });

  it("answers 401 without a signed-in session, and 403 to a request another site sent", async () => {
    const without = await post(table(), {});
    expect(without.status).toBe(401);
    expect(await without.json()).toMatchObject({ error: { code: "unauthorized" } });
    expect((await post(table(), { Cookie: "tally_session=not-a-session" })).status).toBe(401);
    expect((await post(table(), { Cookie: `tally_session=${session}`, Origin: "https://elsewhere.test" })).status).toBe(403);
  });

  it("answers 400 naming the field at fault", async () => {
    const refused = async (body: unknown) => {
      const response = await post(body);
      expect(response.status).toBe(400);
      return ((await response.json()) as { error: { code: string; message: string } }).error;
    };
    expect(await refused(table({ rows: [...ROWS, ["short", 1]] }))).toEqual({ code: "bad_request", message: "rows[3] has 2 values, but there are 7 columns" });
    expect((await refused(table({ totals: [1] }))).message).toMatch(/^totals has 1 values/);
    expect((await refused(table({ columns: [{ label: "A", kind: "currency" }], rows: [] }))).message).toMatch(/^columns\[0\]\.kind /);
    expect((await refused(table({ name: "../etc/passwd" }))).message).toMatch(/^name must be 1 to 80/);
    expect((await refused(table({ name: "Campaigns" }))).message).toMatch(/^name /);
    expect((await refused(table({ format: "pdf" }))).message).toMatch(/^format /);
    expect((await refused(table({ rows: [[{ a: 1 }, 1, 1, 1, 1, "2026-11-10", null]] }))).message).toBe("rows[0][0] must be a string, a number or null");
    expect((await refused(table({ columns: [], rows: [] }))).message).toMatch(/^columns /);
    expect((await refused(table({ sheet: "x".repeat(32) }))).message).toMatch(/^sheet /);
    expect((await refused(table({ columns: [{ label: "A", kind: "money", currency: "euro" }], rows: [[1]], totals: undefined }))).message).toMatch(
      /^columns\[0\]\.currency must be an ISO 4217 code/,
    );
    expect((await refused("{not json")).message).toBe("the body is not valid JSON");
  });

  it("answers 413 to a body over 8 MB", async () => {
    const big = table({ columns: [{ label: "Text", kind: "text" }], rows: Array.from({ length: 9000 }, () => ["x".repeat(1000)]), totals: undefined });
    const response = await post(big);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "payload_too_large" } });
  });
});
