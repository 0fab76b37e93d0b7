// One signed-in viewer against the production build's heavy dashboard work: ten POST
// /dashboard/table-file at once, each 40 columns × 100,000 rows (8.2 MB of JSON). Those that
// find the slot taken are refused with 429 and Retry-After before their body is read, one let in is refused by its
// cells as it arrives, /api/health keeps answering 200 meanwhile, and afterwards another viewer's
// table file, a beacon and an order, and a report all still go through.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { makeAdvertiser } from "@/testing/fixtures";
import { CHROME, closeSql, freshAddress, stack } from "./client";
import { legitimateTrafficGoesThrough } from "./legitimate-traffic";

let advertiserId: string;

async function viewerCookie(): Promise<string> {
  const email = `viewer-${randomUUID()}@hostile.test`;
  await createUser({ email, name: "Viewer", password: "hostile viewer password", role: "member", accountId: advertiserId, memberRole: "viewer" });
  return `tally_session=${(await signIn(email, "hostile viewer password")).token}`;
}

beforeAll(async () => {
  advertiserId = (await makeAdvertiser()).id;
});
afterAll(closeSql);

/** The hostile tester's table: 40 columns of 100,000 single-digit rows, 8.2 MB as JSON. */
function bigTable(): string {
  const columns = Array.from({ length: 40 }, (_, c) => ({ label: `Column ${c}`, kind: "integer" }));
  const row = Array.from({ length: 40 }, (_, c) => (c % 9) + 1);
  return JSON.stringify({ format: "xlsx", name: "burst", columns, rows: Array.from({ length: 100_000 }, () => row) });
}

async function postTable(cookie: string, body: string, address: string) {
  const response = await fetch(`${stack.nextUrl}/dashboard/table-file`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Cookie: cookie, "User-Agent": CHROME, "X-Forwarded-For": address },
    body,
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("ten large table files at once from one viewer", () => {
  it("are refused, with 429 and Retry-After before their body is read or 413 by their cells, while health answers, and the others' work goes on", async () => {
    const body = bigTable();
    expect(Buffer.byteLength(body)).toBeGreaterThan(8_000_000);
    const attacker = await viewerCookie();
    const address = freshAddress();
    const health: number[] = [];
    let burstDone = false;
    const burst = Promise.all(Array.from({ length: 10 }, () => postTable(attacker, body, address))).finally(() => {
      burstDone = true;
    });
    while (!burstDone) {
      const answer = await fetch(`${stack.nextUrl}/api/health`, { headers: { "X-Forwarded-For": freshAddress() } });
      await answer.arrayBuffer();
      health.push(answer.status);
    }
    const answers = await burst;

    // None is written. Those that find the person's slot taken are refused at once (429); one that
    // takes the slot is refused by its cells (413), and gives the slot to the next: how many of each
    // depends on how the ten arrive.
    expect(answers.every((answer) => answer.status === 429 || answer.status === 413)).toBe(true);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const answer of refused) {
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get("ratelimit-policy")).toMatch(/^"user-per-minute";q=\d+;w=60, "account-per-minute";q=\d+;w=60$/);
      expect(answer.headers.get("ratelimit")).toMatch(/"user-per-minute";r=\d+;t=\d+/);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: "too_many_requests" } });
    }
    // The ones let in meet the cell budget, long before 4,000,000 cells are parsed or written.
    for (const answer of answers.filter((a) => a.status !== 429)) {
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { code: "payload_too_large", message: expect.stringMatching(/^the table has more than \d+ cells/) },
      });
    }
    expect(health.length).toBeGreaterThanOrEqual(1);
    expect(health.every((status) => status === 200)).toBe(true);

    // Another viewer of the same account gets a table of the dashboard's size.
    const table = JSON.stringify({ format: "csv", name: "campaigns", columns: [{ label: "Campaign", kind: "text" }], rows: [["Spring"], ["Autumn"]] });
    const legitimate = await postTable(await viewerCookie(), table, freshAddress());
    expect(legitimate.status).toBe(200);
    expect(legitimate.text).toBe("Campaign\r\nSpring\r\nAutumn\r\n");
    // A report, and beacons and an order settled and attributed.
    const { key } = await createApiKey({ actor: OPERATOR, accountId: advertiserId, name: "after the burst" });
    const report = await fetch(`${stack.nextUrl}/campaign/v2?start_date=2026-11-01&end_date=2026-11-03`, { headers: { Authorization: `Bearer ${key}` } });
    expect(report.status).toBe(200);
    await legitimateTrafficGoesThrough();
  });
});
