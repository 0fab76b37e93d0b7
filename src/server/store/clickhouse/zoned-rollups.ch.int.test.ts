// ClickHouse's rollups per kept zone (migration 7): an event lands on its local day in every zone
// kept other than UTC (the day worked out here with Intl.DateTimeFormat, a reference neither store
// wrote), only from the zone's since on, and a zone's new version row (ReplacingMergeTree, not yet
// merged) does not make the views count a block once per version.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { insertRows, selectRows } from "./client";

const zoneRow = (zone: string, since: string, version: number) => ({ zone, since, hours_since: since, version });

function event(at: string, spend = 1000) {
  return {
    event_id: randomUUID(),
    kind: "impression",
    status: "counted",
    session_id: "s",
    user_id: null,
    ad_id: "ad-1",
    campaign_id: "cmp-1",
    advertiser_id: "adv-1",
    publisher_id: "pub-1",
    request_id: randomUUID(),
    ad_type: "banner",
    ad_size: null,
    placement_name: "search-top",
    context: "search",
    site: "shop.example",
    spend_micros: spend,
    user_agent: null,
    client_hash: null,
    created_at: at,
    batch_id: 1,
  };
}

const localDay = (at: string, zone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(at));

const zonedDays = () =>
  selectRows<{ zone: string; day: string; impressions: string; spend: string }>(
    `SELECT zone, toString(day) AS day, sum(impressions) AS impressions, sum(spend_micros) AS spend
       FROM zoned_report_rollups GROUP BY zone, day ORDER BY zone, day`,
  );

describe("ClickHouse's rollups per kept zone", () => {
  it("keeps UTC as a row of report_zones from 1970 and no zoned rows for it", async () => {
    expect(await selectRows("SELECT zone, toString(since) AS since FROM report_zones FINAL")).toEqual([{ zone: "UTC", since: "1970-01-01 00:00:00.000" }]);
  });

  it("counts each event on its local day in every kept zone, from the zone's since on, once however many versions of the zone's row are unmerged", async () => {
    const since = "2026-12-01 00:00:00.000";
    await insertRows(
      "report_zones",
      ["America/Sao_Paulo", "Asia/Kathmandu", "Australia/Lord_Howe"].map((zone) => zoneRow(zone, since, 1)),
      "",
    );
    // A second version of São Paulo's row, with the same since: the views must take one.
    await insertRows("report_zones", [zoneRow("America/Sao_Paulo", since, 2)], "");
    const times = ["2026-11-30T23:59:59.999Z", "2026-12-01T02:00:00.000Z", "2026-12-01T02:59:59.999Z", "2026-12-01T13:15:00.000Z", "2026-12-01T18:15:00.000Z"];
    await insertRows(
      "ad_events",
      times.map((at) => event(at.replace("T", " ").replace("Z", ""))),
      "",
    );
    const expected = new Map<string, number>();
    for (const zone of ["America/Sao_Paulo", "Asia/Kathmandu", "Australia/Lord_Howe"]) {
      for (const at of times.slice(1)) {
        const key = `${zone} ${localDay(at, zone)}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
    }
    const found = await zonedDays();
    expect(new Map(found.map((row) => [`${row.zone} ${row.day}`, Number(row.impressions)]))).toEqual(expected);
    // By hand: 02:00 UTC is 23:00 of 30 November in São Paulo, 07:45 of 1 December in Kathmandu; 13:15 UTC is 00:15 of 2 December at Lord Howe (+11).
    expect(expected.get("America/Sao_Paulo 2026-11-30")).toBe(2);
    expect(expected.get("Asia/Kathmandu 2026-12-01")).toBe(3);
    expect(expected.get("Australia/Lord_Howe 2026-12-02")).toBe(2);
  });

  it("puts events 1 ms before and at local midnights on their own days across daylight-saving changes: New York's 25-hour day, Lord Howe's half-hour change", async () => {
    await insertRows(
      "report_zones",
      [zoneRow("America/New_York", "2026-10-01 00:00:00.000", 1), zoneRow("Australia/Lord_Howe", "2026-10-01 00:00:00.000", 3)],
      "",
    );
    // New York: 1 November 2026 runs from 04:00 UTC (EDT) to 05:00 UTC the next day (EST), 25 hours.
    // Lord Howe: 4 October 2026 runs from 13:30 UTC on the 3rd (+10:30) to 13:00 UTC on the 4th (+11), 23.5 hours.
    const times = [
      "2026-11-01T03:59:59.999Z",
      "2026-11-01T04:00:00.000Z",
      "2026-11-02T04:59:59.999Z",
      "2026-11-02T05:00:00.000Z",
      "2026-10-03T13:29:59.999Z",
      "2026-10-03T13:30:00.000Z",
      "2026-10-04T12:59:59.999Z",
      "2026-10-04T13:00:00.000Z",
    ];
    await insertRows(
      "ad_events",
      times.map((at) => ({ ...event(at.replace("T", " ").replace("Z", "")), advertiser_id: "adv-dst" })),
      "",
    );
    const found = await selectRows<{ zone: string; day: string; impressions: string }>(
      `SELECT zone, toString(day) AS day, sum(impressions) AS impressions FROM zoned_report_rollups
        WHERE advertiser_id = 'adv-dst' AND zone IN ('America/New_York', 'Australia/Lord_Howe') GROUP BY zone, day HAVING impressions > 0 ORDER BY zone, day`,
    );
    const expected = new Map<string, number>();
    for (const zone of ["America/New_York", "Australia/Lord_Howe"]) {
      for (const at of times) {
        const key = `${zone} ${localDay(at, zone)}`;
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
    }
    expect(new Map(found.map((row) => [`${row.zone} ${row.day}`, Number(row.impressions)]))).toEqual(expected);
    // By hand: New York's 1 November holds the two events from 04:00 UTC to 04:59:59.999 UTC the next day; Lord Howe's 4 October the two from 13:30 UTC to 12:59:59.999 UTC.
    expect(expected.get("America/New_York 2026-11-01")).toBe(2);
    expect(expected.get("Australia/Lord_Howe 2026-10-04")).toBe(2);
  });
});
