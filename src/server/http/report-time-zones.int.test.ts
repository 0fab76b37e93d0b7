// The report routes read in time zones: an advertiser in São Paulo (UTC−3), reports kept there
// and in Kathmandu (UTC+5:45) since 5 Nov, and impressions 1 ms before and at a local midnight of
// each, and either side of the zones' start. Every route's days are local dates of the zone read
// in; before the zone's start they are UTC days, said so in a header, and no impression is lost or
// counted twice where the two meet.
import ExcelJS from "exceljs";
import sql from "sql-template-tag";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { pgPool } from "@/server/db/pg-pool";
import { forgetReadableZones, readableReportZones, zonedDays } from "@/server/store/postgres/report-zone.sql";
import { handleAdsDetailed, handleCampaignDetail, handleCampaignListing, handleCampaignsDetailed } from "@/testing/api/checked-report-routes";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { beacon, type Fixture } from "@/testing/report-fixture";
import { settleAll } from "@/testing/settle";

const SINCE = "2026-11-05T00:00:00Z";
const MOMENTS = {
  // Before the zones' start: in the UTC rows only (4 Nov, UTC).
  beforeStart: "2026-11-04T12:00:00.000Z",
  // After it: 4 Nov 22:00 in São Paulo, 5 Nov 06:45 in Kathmandu, 5 Nov in UTC.
  afterStart: "2026-11-05T01:00:00.000Z",
  // 1 ms before São Paulo's midnight (9 Nov 23:59:59.999 there) and at it (10 Nov 00:00).
  beforeSaoPauloMidnight: "2026-11-10T02:59:59.999Z",
  atSaoPauloMidnight: "2026-11-10T03:00:00.000Z",
  // 1 ms before Kathmandu's midnight (11 Nov 23:59:59.999 there) and at it (12 Nov 00:00).
  beforeKathmanduMidnight: "2026-11-11T18:14:59.999Z",
  atKathmanduMidnight: "2026-11-11T18:15:00.000Z",
};
const EVENTS = Object.keys(MOMENTS).length;
// New York, kept since 1 Oct: its 1 Nov has 25 hours (clocks go back at 02:00), from 04:00 UTC to
// 05:00 UTC the next day. Its first and last millisecond, and the next day's first.
const NEW_YORK_SINCE = "2026-10-01T00:00:00Z";
const NEW_YORK_MOMENTS = ["2026-11-01T04:00:00.000Z", "2026-11-02T04:59:59.999Z", "2026-11-02T05:00:00.000Z"];
const RANGE = "start_date=2026-11-01&end_date=2026-11-30";

let key: string;
let fixture: Fixture;

beforeAll(async () => {
  await pgPool().query(
    `INSERT INTO report_zones (zone, since, hours_since) VALUES ('America/Sao_Paulo', $1, $1), ('Asia/Kathmandu', $1, $1) ON CONFLICT (zone) DO NOTHING`,
    [SINCE],
  );
  await pgPool().query(`INSERT INTO report_zones (zone, since, hours_since) VALUES ('America/New_York', $1, $1) ON CONFLICT (zone) DO NOTHING`, [
    NEW_YORK_SINCE,
  ]);
  forgetReadableZones();
  const shop = await makePublisher();
  const advertiser = await makeAdvertiser();
  await pgPool().query(`UPDATE accounts SET time_zone = 'America/Sao_Paulo' WHERE id = $1`, [advertiser.id]);
  fixture = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [shop.id], bidModel: "cpm", bid: 10 });
  for (const [name, moment] of Object.entries(MOMENTS)) await beacon("impression", fixture, shop, name, new Date(moment));
  for (const [n, moment] of NEW_YORK_MOMENTS.entries()) await beacon("impression", fixture, shop, `ny${n}`, new Date(moment));
  await settleAll();
  key = (await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "zones" })).key;
}, 120_000);

type Handler = (request: Request) => Promise<Response>;
async function ask(handler: Handler, path: string, query: string) {
  const response = await handler(new Request(`http://tally.test${path}?${query}`, { headers: { Authorization: `Bearer ${key}` } }));
  return { status: response.status, headers: response.headers, response };
}
async function daysOf(query: string) {
  const { status, headers, response } = await ask(handleCampaignsDetailed, "/report/advertisers/campaigns-detailed", `${query}&per_page=100`);
  expect(status).toBe(200);
  const body = (await response.json()) as { data: { day: string; impressions_total: number }[]; total: number };
  const days = Object.fromEntries(body.data.map((row) => [row.day, row.impressions_total]));
  return { days, headers, total: body.total };
}
const sum = (days: Record<string, number>) => Object.values(days).reduce((a, b) => a + b, 0);

describe("reports in the account's time zone", () => {
  it("put each impression on its local day in São Paulo, the account's zone, and the days before the zone's start on UTC days", async () => {
    const { days, headers } = await daysOf(RANGE);
    expect(headers.get("tally-time-zone")).toBe("America/Sao_Paulo");
    expect(headers.get("tally-utc-days-before")).toBe("2026-11-05");
    // 4 Nov: the UTC day before the start (12:00 UTC) and São Paulo's 4 Nov from the start on (22:00 there).
    // New York's three are before São Paulo's start: on their UTC days, 1 Nov (04:00) and 2 Nov (04:59:59.999 and 05:00).
    expect(days).toEqual({ "2026-11-01": 1, "2026-11-02": 2, "2026-11-04": 2, "2026-11-09": 1, "2026-11-10": 1, "2026-11-11": 2 });
    expect(sum(days)).toBe(EVENTS + 3);
  });

  it("read another kept zone with time_zone, and UTC, each impression once", async () => {
    const kathmandu = await daysOf(`${RANGE}&time_zone=Asia/Kathmandu`);
    expect(kathmandu.headers.get("tally-time-zone")).toBe("Asia/Kathmandu");
    expect(kathmandu.days).toEqual({ "2026-11-01": 1, "2026-11-02": 2, "2026-11-04": 1, "2026-11-05": 1, "2026-11-10": 2, "2026-11-11": 1, "2026-11-12": 1 });
    const utc = await daysOf(`${RANGE}&time_zone=utc`);
    expect(utc.headers.get("tally-time-zone")).toBe("UTC");
    expect(utc.headers.get("tally-utc-days-before")).toBeNull();
    expect(utc.days).toEqual({ "2026-11-01": 1, "2026-11-02": 2, "2026-11-04": 1, "2026-11-05": 1, "2026-11-10": 2, "2026-11-11": 2 });
    expect(sum(kathmandu.days)).toBe(EVENTS + 3);
    expect(sum(utc.days)).toBe(EVENTS + 3);
  });

  it("make a 25-hour local day of the day clocks go back", async () => {
    const { days, headers } = await daysOf("start_date=2026-10-31&end_date=2026-11-03&time_zone=America/New_York");
    expect(headers.get("tally-utc-days-before")).toBeNull();
    expect(days).toEqual({ "2026-11-01": 2, "2026-11-02": 1 });
  });

  it("say nothing of UTC days when the range starts at the zone's start, and count the same totals over every route", async () => {
    const { days, headers } = await daysOf("start_date=2026-11-05&end_date=2026-11-30");
    // São Paulo's own days from the start on: the impressions of 1 and 2 Nov are before the range.
    expect(headers.get("tally-utc-days-before")).toBeNull();
    expect(days).toEqual({ "2026-11-09": 1, "2026-11-10": 1, "2026-11-11": 2 });

    const listing = await ask(handleCampaignListing, "/campaign/v2", RANGE);
    expect(listing.headers.get("tally-time-zone")).toBe("America/Sao_Paulo");
    const rows = ((await listing.response.json()) as { data: { campaign_id: string; impressions_total: number }[] }).data;
    expect(rows.find((row) => row.campaign_id === fixture.campaign.id)?.impressions_total).toBe(EVENTS + 3);
    // One local day: São Paulo's 10 Nov holds the impression at its midnight, not the one 1 ms before.
    const oneDay = await ask(handleCampaignListing, "/campaign/v2", "start_date=2026-11-10&end_date=2026-11-10");
    expect(((await oneDay.response.json()) as { data: { impressions_total: number }[] }).data[0]?.impressions_total).toBe(1);
  });

  it("count the ad rows of the day where UTC days meet the zone's once (paged by day)", async () => {
    const { status, response } = await ask(handleAdsDetailed, "/report/advertisers/ads-detailed", `${RANGE}&per_page=2`);
    expect(status).toBe(200);
    const page = (await response.json()) as { data: { day: string; impressions_total: number }[]; total: number };
    expect(page.total).toBe(6);
    expect(page.data.map((row) => row.day)).toEqual(["2026-11-11", "2026-11-10"]);
    const last = await ask(handleAdsDetailed, "/report/advertisers/ads-detailed", `${RANGE}&per_page=2&page=2`);
    const lastPage = (await last.response.json()) as { data: { day: string; impressions_total: number }[] };
    expect(lastPage.data.map((row) => [row.day, row.impressions_total])).toEqual([
      ["2026-11-09", 1],
      ["2026-11-04", 2],
    ]);
  });

  it("give the campaign's daily rows in the zone, every local day present", async () => {
    const { headers, response } = await ask(
      handleCampaignDetail,
      `/campaign/${fixture.campaign.id}`,
      "start_date=2026-11-09&end_date=2026-11-12&time_zone=Asia/Kathmandu",
    );
    expect(headers.get("tally-time-zone")).toBe("Asia/Kathmandu");
    const { data } = (await response.json()) as { data: { daily: { day: string; impressions_total: number }[] } };
    expect(data.daily.map((d) => [d.day, d.impressions_total])).toEqual([
      ["2026-11-09", 0],
      ["2026-11-10", 2],
      ["2026-11-11", 1],
      ["2026-11-12", 1],
    ]);
  });

  it("refuse a zone reports are not kept in, naming those they are, and a name that is no zone", async () => {
    const paris = await ask(handleCampaignListing, "/campaign/v2", `${RANGE}&time_zone=Europe/Paris`);
    expect(paris.status).toBe(400);
    expect(await paris.response.json()).toEqual({
      error: { code: "bad_request", message: "time_zone must be one of: UTC, America/New_York, America/Sao_Paulo, Asia/Kathmandu" },
    });
    const offset = await ask(handleCampaignListing, "/campaign/v2", `${RANGE}&time_zone=%2B05:30`);
    expect(offset.status).toBe(400);
    expect(((await offset.response.json()) as { error: { message: string } }).error.message).toBe(
      "time_zone must be an IANA time zone name such as America/Sao_Paulo, not '+05:30'",
    );
  });

  it("name the zone in the XLSX file's properties and its answer's headers", async () => {
    const { status, headers, response } = await ask(handleCampaignsDetailed, "/report/advertisers/campaigns-detailed", `${RANGE}&download=true`);
    expect(status).toBe(200);
    expect(headers.get("tally-time-zone")).toBe("America/Sao_Paulo");
    expect(headers.get("tally-utc-days-before")).toBe("2026-11-05");
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await response.arrayBuffer());
    expect(workbook.title).toBe("Campaigns by day, 2026-11-01 to 2026-11-30, America/Sao_Paulo");
    expect(workbook.description).toBe(
      "Days are local dates in America/Sao_Paulo (time zone). Days before 2026-11-05 are UTC days: the zone's own days start then.",
    );
  });

  it("read a range wholly in the zone's own days from its rows alone, with the same figures as both sides", async () => {
    const sum = async (range: { startDate: string; endDate: string; zone: string }) => {
      const condition = zonedDays("r", range);
      const { rows } = await pgPool().query<{ n: number }>(
        sql`SELECT coalesce(sum(r.impressions), 0)::int AS n FROM daily_campaign_totals r WHERE r.campaign_id = ${fixture.campaign.id} AND ${condition}`,
      );
      return { n: rows[0]!.n, readsUtcRows: condition.sql.includes("report_zones") };
    };
    const own = { startDate: "2026-11-05", endDate: "2026-11-30", zone: "America/Sao_Paulo" };
    const straddling = { ...own, startDate: "2026-11-04" };
    forgetReadableZones();
    // Without a copy of report_zones, both sides, the start read in the statement.
    const unknown = await sum(own);
    await readableReportZones();
    const known = await sum(own);
    expect(unknown.readsUtcRows).toBe(true);
    expect(known.readsUtcRows).toBe(false);
    expect(known.n).toBe(unknown.n);
    // From São Paulo's 5 Nov: neither the impression before the start nor the one just after it (4 Nov, 22:00 there).
    expect(known.n).toBe(EVENTS - 2);
    // A range that starts before the zone's first own day still reads the UTC days before it.
    const before = await sum(straddling);
    expect(before).toEqual({ n: EVENTS, readsUtcRows: true });
  });

  it("read a report in a kept zone through the (advertiser, zone, day) index", async () => {
    const client = await pgPool().connect();
    try {
      await client.query("BEGIN");
      // The test's tables are tiny: the planner would scan them whole. Without that choice, it must find an index that serves both sides.
      await client.query("SET LOCAL enable_seqscan = off");
      const range = { startDate: "2026-11-01", endDate: "2026-11-30", zone: "America/Sao_Paulo" };
      const { rows } = await client.query<{ "QUERY PLAN": string }>(
        sql`EXPLAIN SELECT sum(r.impressions) FROM daily_campaign_totals r WHERE r.advertiser_id = ${fixture.campaign.advertiserId} AND ${zonedDays("r", range)}`,
      );
      await client.query("ROLLBACK");
      const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
      expect(plan).toContain("daily_campaign_totals_advertiser_id_zone_day_idx");
      expect(plan).not.toContain("Seq Scan on daily_campaign_totals");
    } finally {
      client.release();
    }
  });
});
