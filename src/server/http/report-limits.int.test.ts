// The report routes' limits as a client meets them: requests per key or person (429 with
// Retry-After, counted in Postgres), and over a real HTTP server with a real client, downloads
// that are never read: cut after the stall time with their connection back, while their key is
// refused more and another account downloads whole.
process.env.TALLY_REPORT_RATE_PER_SECOND = "2";
process.env.TALLY_REPORT_RATE_BURST = "3";
process.env.TALLY_REPORT_DOWNLOAD_STALL_SECONDS = "10";
process.env.TALLY_REPORT_DOWNLOAD_WAIT_SECONDS = "0.5";

import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { bulkPool, pgPool } from "@/server/db/pg-pool";
import { metricsText } from "@/server/upkeep/prometheus";
import { handleAdsDetailed, handleCampaignListing } from "@/testing/api/checked-report-routes";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { type LargeReport, seedLargeAdsReport } from "@/testing/large-report";
import { startReportServer } from "@/testing/second-server";
import { resetReportRateLimit } from "./report-rate-limit";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const counter = async (name: string, reason: string) =>
  Number(new RegExp(`^${name}\\{reason="${reason}"\\} (\\d+)$`, "m").exec((await metricsText()).body)?.[1]);
const count = async (where: string) => (await pgPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM ${where}`)).rows[0]!.n;
const stalledFetches = () => count("pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction' AND query LIKE 'FETCH%'");
const idleInTransaction = () => count("pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'");

async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("report requests per caller", () => {
  const listing = (headers: Record<string, string>) =>
    handleCampaignListing(new Request("http://localhost:3000/campaign/v2", { headers: { Host: "localhost:3000", ...headers } }));
  /** `n` requests at once; the statuses, and how long the flood took in whole seconds (rounded up). */
  async function flood(n: number, headers: Record<string, string>) {
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: n }, () => listing(headers)));
    return { answers, seconds: Math.ceil((Date.now() - started) / 1000) };
  }

  it("answer 429 with Retry-After and Tally's error past 2 a second and a burst of 3, per key, counted in Postgres for every process", async () => {
    const advertiser = await makeAdvertiser();
    const [one, two] = [
      await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "one" }),
      await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "two" }),
    ];
    const refusedBefore = await counter("tally_report_requests_refused_total", "rate");
    const { answers, seconds } = await flood(20, { Authorization: `Bearer ${one.key}` });
    const passed = answers.filter((answer) => answer.status === 200).length;
    // Each started second lets 2 through, and the burst 3 over 10 s.
    expect(passed).toBeLessThanOrEqual(2 * (seconds + 1) + 3);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(20 - passed);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await refused.json()).toEqual({
      error: {
        code: "too_many_requests",
        message: "too many report requests for this API key: at most 2 a second, with a burst of 3 more in 10 s; retry after the wait in Retry-After",
      },
    });
    expect(await counter("tally_report_requests_refused_total", "rate")).toBe(refusedBefore + 20 - passed);

    // Another key of the same account has its own count.
    expect((await listing({ Authorization: `Bearer ${two.key}` })).status).toBe(200);
    // The counts live in rate_limits, where every process reads them: a fresh limiter (as in a
    // process that saw none of the flood) still finds the burst spent.
    const { rows } = await pgPool().query<{ points: number }>("SELECT points FROM rate_limits WHERE key = $1", [`report-burst:key:${one.id}`]);
    expect(rows[0]!.points).toBeGreaterThanOrEqual(3);
    resetReportRateLimit();
    const again = await flood(10, { Authorization: `Bearer ${one.key}` });
    expect(again.answers.filter((answer) => answer.status === 200).length).toBeLessThanOrEqual(2 * (again.seconds + 1));

    // After the wait it says, the key is served again.
    const wait = Number(again.answers.find((answer) => answer.status === 429)!.headers.get("retry-after"));
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    expect((await listing({ Authorization: `Bearer ${one.key}` })).status).toBe(200);
  });

  it("say where the caller stands on every answer: the second's allowance, then the burst's, and both on a 429", async () => {
    const advertiser = await makeAdvertiser();
    const { key } = await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "fields" });
    const policy = '"per-second";q=2;w=1, "burst";q=3;w=10';
    const answers = [];
    for (let i = 0; i < 8; i += 1) answers.push(await listing({ Authorization: `Bearer ${key}` }));
    for (const answer of answers) expect(answer.headers.get("ratelimit-policy")).toBe(policy);
    const fields = answers.map((answer) => answer.headers.get("ratelimit")!);
    // Within one second: 2 from the second's allowance (1 left, then 0), then the burst's 3.
    if (answers.filter((answer) => answer.status === 200).length === 5) {
      expect(fields.slice(0, 6)).toEqual([
        expect.stringMatching(/^"per-second";r=1;t=1$/),
        expect.stringMatching(/^"per-second";r=0;t=1$/),
        expect.stringMatching(/^"per-second";r=0;t=1, "burst";r=2;t=(9|10)$/),
        expect.stringMatching(/^"per-second";r=0;t=1, "burst";r=1;t=(9|10)$/),
        expect.stringMatching(/^"per-second";r=0;t=1, "burst";r=0;t=(9|10)$/),
        expect.stringMatching(/^"per-second";r=0;t=1, "burst";r=0;t=(9|10)$/),
      ]);
    }
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.headers.get("ratelimit")).toMatch(/"burst";r=0;t=\d+$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // An answer that is not 200 after counting (here a 404) says it too.
    const missing = await handleCampaignListing(
      new Request("http://localhost:3000/campaign/v2?order_by=nope", { headers: { Host: "localhost:3000", Authorization: `Bearer ${key}` } }),
    );
    expect([400, 429]).toContain(missing.status);
    expect(missing.headers.get("ratelimit-policy")).toBe(policy);
  });

  it("hold across two server processes sharing the database: the burst counts down across both and the 429 comes at the same count", async () => {
    const advertiser = await makeAdvertiser();
    const { key } = await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "two processes" });
    const { key: warmUp } = await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "warm-up" });
    const servers = await Promise.all([startReportServer(), startReportServer()]);
    try {
      const get = (origin: string, bearer: string) => fetch(`${origin}/campaign/v2`, { headers: { Authorization: `Bearer ${bearer}` } });
      // Each process compiles its route on its first request, with a key of its own.
      for (const { origin } of servers) expect((await get(origin, warmUp)).status).toBe(200);
      const started = Date.now();
      const statuses: number[] = [];
      const bursts: number[] = [];
      for (let i = 0; i < 8; i += 1) {
        const answer = await get(servers[i % 2]!.origin, key);
        statuses.push(answer.status);
        const left = /"burst";r=(\d+)/.exec(answer.headers.get("ratelimit") ?? "");
        if (left && answer.status === 200) bursts.push(Number(left[1]));
      }
      const seconds = Math.ceil((Date.now() - started) / 1000);
      const passed = statuses.indexOf(429);
      // One process alone lets 2 a second and the burst's 3 through; two processes let no more.
      expect(passed).toBeGreaterThanOrEqual(5);
      expect(passed).toBeLessThanOrEqual(2 * seconds + 3);
      if (seconds === 1) expect(passed).toBe(5);
      // The burst's count runs down whichever process answered.
      expect(bursts).toEqual([...bursts].sort((a, b) => b - a));
      expect(new Set(bursts).size).toBe(bursts.length);
    } finally {
      for (const { child } of servers) child.kill();
    }
  });

  it("count a signed-in person's dashboard requests apart from the account's keys", async () => {
    const advertiser = await makeAdvertiser();
    await createUser({ email: "limits@reports.test", name: "Limits", password: "correct horse battery", role: "member", accountId: advertiser.id });
    const session = (await signIn("limits@reports.test", "correct horse battery")).token;
    const { key } = await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "beside" });
    const { answers } = await flood(20, { Cookie: `tally_session=${session}`, "Sec-Fetch-Site": "same-origin" });
    const refused = answers.find((answer) => answer.status === 429);
    expect(await refused?.json()).toMatchObject({ error: { message: expect.stringMatching(/^too many report requests for this user:/) } });
    expect((await listing({ Authorization: `Bearer ${key}` })).status).toBe(200);
  });
});

// A real HTTP server in front of the report routes, piping each answer with backpressure, as
// next start does: a client that reads nothing stops the rows at the socket.
let server: http.Server;
let origin: string;
let large: LargeReport;
let largeKeys: string[];

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const request = new Request(`${origin}${req.url}`, { headers: req.headers as Record<string, string> });
    const response = await handleAdsDetailed(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // About 9 MB of XLSX: twice what loopback sockets buffer for a client that reads nothing.
  large = await seedLargeAdsReport(pgPool(), { ads: 600, days: 100, endDate: "2026-11-20" });
  largeKeys = [];
  for (const name of ["first", "second"]) largeKeys.push((await createApiKey({ actor: OPERATOR, accountId: large.advertiserId, name })).key);
}, 120_000);

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Opened {
  response: http.IncomingMessage;
  bytes: () => number;
}

/** Opens a download and reads nothing more than its status and headers. */
function openUnread(key: string, range: { startDate: string; endDate: string }): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${origin}/report/advertisers/ads-detailed?download=true&start_date=${range.startDate}&end_date=${range.endDate}`,
      { headers: { Authorization: `Bearer ${key}` } },
      (response) => {
        response.pause();
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
        });
        response.pause();
        resolve({ response, bytes: () => bytes });
      },
    );
    request.on("error", reject);
  });
}

async function download(key: string, range: { startDate: string; endDate: string }) {
  const response = await fetch(`${origin}/report/advertisers/ads-detailed?download=true&start_date=${range.startDate}&end_date=${range.endDate}`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

describe("report downloads over HTTP to a client that reads nothing", () => {
  it("are cut after the stall time, their connections and slots back, while their key is refused more and another account downloads whole", async () => {
    const cutBefore = await counter("tally_report_downloads_cut_total", "stalled");
    const unread = [await openUnread(largeKeys[0]!, large), await openUnread(largeKeys[0]!, large)];
    for (const { response } of unread) {
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe(XLSX);
    }
    // Both wait on their clients with a cursor open (idle in transaction, between FETCHes).
    await eventually(async () => (await stalledFetches()) === 2);

    const third = await download(largeKeys[0]!, large);
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("5");
    expect(JSON.parse(third.body.toString())).toEqual({
      error: { code: "too_many_requests", message: "a download for this key is already running; at most 2 at once" },
    });
    const sameAccount = await download(largeKeys[1]!, large);
    expect(sameAccount.status).toBe(429);
    expect(JSON.parse(sameAccount.body.toString()).error.message).toMatch(/^this account's downloads already use its share/);

    // Another account's download takes the third bulk connection and arrives whole.
    const publisher = await makePublisher();
    const other = await makeAdvertiser();
    const { campaign } = await makeCampaignWithAd({ advertiserId: other.id, publisherIds: [publisher.id] });
    await pgPool().query(
      `INSERT INTO daily_ad_totals (day, advertiser_id, campaign_id, ad_id, publisher_id, impressions)
       SELECT d::date, $1, $2, a.id, '', 5 FROM ads a, generate_series('2026-11-01'::date, '2026-11-03'::date, interval '1 day') d WHERE a.campaign_id = $2`,
      [other.id, campaign.id],
    );
    const otherKey = (await createApiKey({ actor: OPERATOR, accountId: other.id, name: "other" })).key;
    const whole = await download(otherKey, { startDate: "2026-11-01", endDate: "2026-11-03" });
    expect(whole.status).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(whole.body as unknown as ArrayBuffer);
    // The header, the three days, the totals.
    expect(workbook.worksheets[0]!.rowCount).toBe(1 + 3 + 1);
    expect(await stalledFetches()).toBe(2);

    // Past the stall time both are cut: no transaction left open, every bulk connection back.
    await eventually(async () => (await idleInTransaction()) === 0 && bulkPool().idleCount === bulkPool().totalCount, 40_000);
    expect(await counter("tally_report_downloads_cut_total", "stalled")).toBe(cutBefore + 2);
    // A client that reads again gets what was sent, then a broken transfer: never a whole file.
    for (const { response, bytes } of unread) {
      const ended = await new Promise<string>((resolve) => {
        response.on("end", () => resolve("end"));
        response.on("error", () => resolve("error"));
        response.on("aborted", () => resolve("aborted"));
        response.resume();
      });
      expect(ended).not.toBe("end");
      expect(response.complete).toBe(false);
      expect(bytes()).toBeGreaterThan(0);
    }
    // Their slots are free: the key downloads again.
    const after = await download(largeKeys[0]!, { startDate: large.endDate, endDate: large.endDate });
    expect(after.status).toBe(200);
    const rows = new ExcelJS.Workbook();
    await rows.xlsx.load(after.body as unknown as ArrayBuffer);
    expect(rows.worksheets[0]!.rowCount).toBe(1 + 600 + 1);
  }, 90_000);
});
