// The report routes under attack at the production build (`next start`): a flood of requests on
// one API key, and XLSX downloads whose client never reads the answer. Past the key's rate a 429;
// downloads held by a silent client are limited per key and per account, cut after the stall
// time with their database connections back, and meanwhile another account's download, the
// health check and the export cron are answered.
import http from "node:http";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { disconnectDb } from "@/server/db/client";
import { closePgPool, pgPool } from "@/server/db/pg-pool";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { type LargeReport, seedLargeAdsReport } from "@/testing/large-report";
import { checkedFetch, closeSql, eventually, sql, stack } from "./client";
import { HOSTILE_ENV } from "./global-stack";
import { legitimateTrafficGoesThrough } from "./legitimate-traffic";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const RANGE = { startDate: "2026-11-01", endDate: "2026-11-03" };

/** An advertiser with one ad and a report row on each day of RANGE, and a key. */
async function smallAccount(): Promise<{ advertiserId: string; key: string }> {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const { campaign } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
  await sql(
    `INSERT INTO daily_ad_totals (day, advertiser_id, campaign_id, ad_id, publisher_id, impressions)
     SELECT d::date, $1, $2, a.id, '', 5 FROM ads a, generate_series($3::date, $4::date, interval '1 day') d WHERE a.campaign_id = $2`,
    [advertiser.id, campaign.id, RANGE.startDate, RANGE.endDate],
  );
  return { advertiserId: advertiser.id, key: (await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "hostile" })).key };
}

const reportUrl = (path: string, range = RANGE) => `${stack.nextUrl}${path}?start_date=${range.startDate}&end_date=${range.endDate}`;
const downloadUrl = (range: { startDate: string; endDate: string }) => `${reportUrl("/report/advertisers/ads-detailed", range)}&download=true`;
const withKey = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });

async function metric(name: string, reason: string): Promise<number> {
  const text = await (await fetch(`${stack.nextUrl}/api/metrics`, { headers: { Authorization: `Bearer ${HOSTILE_ENV.TALLY_METRICS_TOKEN}` } })).text();
  return Number(new RegExp(`^${name}\\{reason="${reason}"\\} (\\d+)$`, "m").exec(text)?.[1] ?? Number.NaN);
}

/** Health checks every 100 ms until stopped; the statuses seen. */
function watchHealth(): () => Promise<number[]> {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      statuses.push((await fetch(`${stack.nextUrl}/api/health`)).status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return statuses;
  };
}

afterAll(async () => {
  await closeSql();
  await closePgPool();
  await disconnectDb();
});

describe("a flood of report requests on one key", () => {
  it("gets 429s with Retry-After past the key's rate, and the health check answers throughout", async () => {
    const { key } = await smallAccount();
    // The route's code loads on its first request: the flood measures the limit, not that.
    expect((await checkedFetch(reportUrl("/campaign/v2"), withKey((await smallAccount()).key))).status).toBe(200);
    const health = watchHealth();
    const statuses: number[] = [];
    const refusals: Response[] = [];
    const started = Date.now();
    let sent = 0;
    // 400 requests, 20 in flight at a time.
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (sent < 400) {
          sent += 1;
          const response = await fetch(reportUrl("/campaign/v2"), withKey(key));
          statuses.push(response.status);
          if (response.status === 429 && refusals.length < 5) refusals.push(response);
          else await response.arrayBuffer();
        }
      }),
    );
    const seconds = Math.ceil((Date.now() - started) / 1000);
    const seen = await health();

    expect(statuses).toHaveLength(400);
    const served = statuses.filter((status) => status === 200).length;
    const refused = statuses.filter((status) => status === 429).length;
    expect(served + refused).toBe(400);
    // 10 a second (each started second, and the one the count began in) and a burst of 20 in 10 s.
    expect(served).toBeLessThanOrEqual(10 * (seconds + 1) + 20 * Math.ceil((seconds + 1) / 10));
    expect(refused).toBeGreaterThan(0);
    for (const response of refusals) {
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(await response.json()).toEqual({
        error: {
          code: "too_many_requests",
          message: "too many report requests for this API key: at most 10 a second, with a burst of 20 more in 10 s; retry after the wait in Retry-After",
        },
      });
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((status) => status === 200)).toBe(true);
    expect(await metric("tally_report_requests_refused_total", "rate")).toBeGreaterThanOrEqual(refused);
  });
});

interface Unread {
  response: http.IncomingMessage;
  request: http.ClientRequest;
}

/** Opens a download and reads nothing but its status and headers: the socket fills and stays full. */
function openUnread(url: string, key: string): Promise<Unread> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, withKey(key), (response) => {
      response.pause();
      resolve({ response, request });
    });
    request.on("error", reject);
  });
}

/** The rest of an answer opened with openUnread, read now. */
async function bodyOf(response: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  response.on("data", (chunk: Buffer) => chunks.push(chunk));
  await new Promise((resolve) => response.once("end", resolve).resume());
  return Buffer.concat(chunks).toString();
}

const stalledFetches = async () =>
  (
    await sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'tally' AND state = 'idle in transaction' AND query LIKE 'FETCH%'",
    )
  )[0]!.n;
const idleInTransaction = async () =>
  (await sql<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'tally' AND state = 'idle in transaction'"))[0]!.n;

describe("downloads that are never read", () => {
  let large: LargeReport;
  let keys: string[];

  beforeAll(async () => {
    // About 9 MB of XLSX: twice what the sockets between server and client buffer.
    large = await seedLargeAdsReport(pgPool(), { ads: 600, days: 100, endDate: "2026-11-20" });
    keys = [];
    for (const name of ["first", "second"]) keys.push((await createApiKey({ actor: OPERATOR, accountId: large.advertiserId, name })).key);
  }, 120_000);

  it("hold at most their key's and account's share, leave another account, the health check and the export cron served, and are cut with their connections back", async () => {
    const cutBefore = await metric("tally_report_downloads_cut_total", "stalled");
    const unread = [await openUnread(downloadUrl(large), keys[0]!), await openUnread(downloadUrl(large), keys[0]!)];
    for (const { response } of unread) {
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe(XLSX);
    }
    await eventually("both downloads wait on their client with a cursor open", async () => (await stalledFetches()) === 2);
    const health = watchHealth();

    // A third download on the key, and one on the account's other key, opened the same way, are refused.
    const third = await openUnread(downloadUrl(large), keys[0]!);
    expect(third.response.statusCode).toBe(429);
    expect(third.response.headers["retry-after"]).toBe("5");
    expect(JSON.parse(await bodyOf(third.response))).toEqual({
      error: { code: "too_many_requests", message: "a download for this key is already running; at most 2 at once" },
    });
    const otherKey = await openUnread(downloadUrl(large), keys[1]!);
    expect(otherKey.response.statusCode).toBe(429);
    expect(JSON.parse(await bodyOf(otherKey.response)).error.message).toMatch(/^this account's downloads already use its share/);

    // Another account downloads its report whole.
    const other = await smallAccount();
    const whole = await fetch(downloadUrl(RANGE), withKey(other.key));
    expect(whole.status).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await whole.arrayBuffer());
    // The header, the three rows and the totals row.
    expect(workbook.worksheets[0]!.rowCount).toBe(1 + 3 + 1);

    // The export cron runs its due work on the bulk pool the downloads share.
    const cron = await fetch(`${stack.nextUrl}/api/cron/export`, { headers: { Authorization: `Bearer ${HOSTILE_ENV.CRON_SECRET}` } });
    expect(cron.status).toBe(200);
    const exported = (await cron.json()) as { runs: { status: string; error: string | null }[] };
    expect(exported.runs.filter((run) => run.status !== "succeeded")).toEqual([]);

    expect(await stalledFetches()).toBe(2);
    expect((await health()).every((status) => status === 200)).toBe(true);

    // Past the stall time both are cut: no transaction left open, and it was counted.
    await eventually(
      "the stalled downloads are cut",
      async () => (await stalledFetches()) === 0,
      (Number(HOSTILE_ENV.TALLY_REPORT_DOWNLOAD_STALL_SECONDS) + 15) * 1000,
    );
    await eventually("no transaction is left idle", async () => (await idleInTransaction()) === 0);
    expect(await metric("tally_report_downloads_cut_total", "stalled")).toBe(cutBefore + 2);

    // A client that reads again gets a broken transfer, never a file that looks whole.
    for (const { response } of unread) {
      const ended = await new Promise<string>((resolve) => {
        response.on("end", () => resolve("end"));
        response.on("error", () => resolve("error"));
        response.on("aborted", () => resolve("aborted"));
        response.resume();
      });
      expect(ended).not.toBe("end");
      expect(response.complete).toBe(false);
    }
    // Their slots are free again.
    const again = await fetch(downloadUrl({ startDate: large.endDate, endDate: large.endDate }), withKey(keys[0]!));
    expect(again.status).toBe(200);
    const day = new ExcelJS.Workbook();
    await day.xlsx.load(await again.arrayBuffer());
    expect(day.worksheets[0]!.rowCount).toBe(1 + 600 + 1); // the header, the rows, the totals
  });
});

describe("after its report floods and downloads never read", () => {
  it("a shopper's click and order are settled and attributed within 30 s, and health and the cron routes answer 200", async () => {
    await legitimateTrafficGoesThrough();
  });
});
