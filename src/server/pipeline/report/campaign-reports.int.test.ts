// GET /campaign/v2 and GET /campaign/:id, JSON and XLSX, over the data of seedAcme (report-fixture.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { CAMPAIGN_DAILY_WORKBOOK, CAMPAIGN_LISTING } from "@/server/pipeline/report/report-definitions";
import { significant } from "@/server/store/metrics";
import { handleCampaignDetail, handleCampaignListing } from "@/testing/api/checked-report-routes";
import { ACME_ORDER_CREDIT, type Fixture, get, RANGE, seedAcme } from "@/testing/report-fixture";
import { reportSheet } from "@/testing/report-sheet";

let advertiserKey: string;
let otherAdvertiserKey: string;
let publisherKey: string;
let cpc: Fixture;
let cpm: Fixture;
let othersCampaign: Fixture;

beforeAll(async () => {
  ({ advertiserKey, otherAdvertiserKey, publisherKey, cpc, cpm, othersCampaign } = await seedAcme());
});

describe("GET /campaign/v2", () => {
  it("lists the advertiser's campaigns with totals computed as the decisions define them", async () => {
    const { status, body } = await get(advertiserKey, RANGE);
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 1, per_page: 50, total: 2 });
    expect(body.data).toEqual([
      {
        campaign_id: cpc.campaign.id,
        name: cpc.campaign.name,
        campaign_type: "product",
        campaign_status: "active",
        advertiser_id: cpc.campaign.advertiserId,
        start_date: expect.any(String),
        end_date: expect.any(String),
        impressions_total: 5,
        views_total: 0,
        clicks_total: 2,
        ctr: 0.4,
        ad_revenue: 1,
        conversions_total: 1,
        conversion_rate: 0.5,
        sales_revenue: 23,
        roas: 23,
        duplicate_events: 0,
        bot_events: 0,
        invalid_events: 0,
        // The fixture's order came without proof, from a publisher that credits such orders: credited, and unverified.
        unverified_conversions: 1,
        unverified_sales_revenue: 23,
        uncredited_conversions: 0,
        uncredited_sales_revenue: 0,
        ...ACME_ORDER_CREDIT,
        // 1.00 spent on 5 impressions, 2 clicks, 1 order of 23.00.
        ecpm: 200,
        avg_cpc: 0.5,
        cpa: 1,
        acos: significant(1 / 23),
      },
      expect.objectContaining({
        campaign_id: cpm.campaign.id,
        impressions_total: 2,
        clicks_total: 0,
        ctr: 0,
        ad_revenue: 0.02,
        conversions_total: 0,
        conversion_rate: 0,
        sales_revenue: 0,
        roas: 0,
        // 0.02 on 2 impressions; nothing clicked or bought: no cost per click, order or sale.
        ecpm: 10,
        avg_cpc: null,
        cpa: null,
        acos: null,
      }),
    ]);
  });

  it("sorts by a listed column, pages, and filters by campaign_id", async () => {
    expect((await get(advertiserKey, `${RANGE}&order_by=impressions_total&order=asc`)).body.data.map((r) => r.campaign_id)).toEqual([
      cpm.campaign.id,
      cpc.campaign.id,
    ]);
    const second = await get(advertiserKey, `${RANGE}&per_page=1&page=2`);
    expect(second.body).toMatchObject({ page: 2, per_page: 1, total: 2 });
    expect(second.body.data.map((r) => r.campaign_id)).toEqual([cpm.campaign.id]);
    expect((await get(advertiserKey, `${RANGE}&per_page=1&page=3`)).body).toEqual({ data: [], page: 3, per_page: 1, total: 2 });
    expect((await get(advertiserKey, `${RANGE}&campaign_id=${cpm.campaign.id}`)).body.data.map((r) => r.campaign_id)).toEqual([cpm.campaign.id]);
    // Outside the range, the campaigns are still listed, with zeros.
    expect((await get(advertiserKey, "start_date=2026-10-01&end_date=2026-10-31")).body.data.map((r) => r.impressions_total)).toEqual([0, 0]);
  });

  it("shows an account only its own rows", async () => {
    const others = await get(otherAdvertiserKey, RANGE);
    expect(others.body.data.map((r) => r.campaign_id)).toEqual([othersCampaign.campaign.id]);
    expect((await get(otherAdvertiserKey, `${RANGE}&campaign_id=${cpc.campaign.id}`)).body).toEqual({ data: [], page: 1, per_page: 50, total: 0 });
    // Shop B sees the campaign that runs on it, with its own numbers only.
    const shopB = await get(publisherKey, RANGE);
    expect(shopB.body.data).toEqual([
      expect.objectContaining({ campaign_id: cpc.campaign.id, impressions_total: 1, clicks_total: 0, ad_revenue: 0, conversions_total: 0, sales_revenue: 0 }),
    ]);
  });

  it("answers 400 naming a bad parameter, and 401 without a key", async () => {
    const bad = await get(advertiserKey, "order_by=spend");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      error: {
        code: "bad_request",
        message: "order_by must be one of impressions_total, clicks_total, ad_revenue, conversions_total, sales_revenue, ctr, name, start_date, not 'spend'",
      },
    });
    expect((await get("tly_nope", "")).status).toBe(401);
  });

  it("downloads every matching row as XLSX: the JSON's rows and columns, numbers as numbers, dates as dates", async () => {
    const response = await handleCampaignListing(
      new Request(`http://tally.test/campaign/v2?${RANGE}&per_page=1&download=true`, { headers: { Authorization: `Bearer ${advertiserKey}` } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="campaigns_2026-11-01_2026-11-30.xlsx"');
    const { sheet, header, fields, rows, totals } = await reportSheet(await response.arrayBuffer(), CAMPAIGN_LISTING.columns);
    expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
    const json = (await get(advertiserKey, RANGE)).body.data;
    // The same columns as the JSON, in its order, headed in words.
    expect(fields).toEqual(Object.keys(json[0]!));
    expect(header.slice(0, 2)).toEqual(["Campaign ID", "Campaign"]);
    expect(header.slice(7, 13)).toEqual(["Impressions", "Views", "Clicks", "CTR", "Spend", "Conversions"]);
    // per_page is ignored: both campaigns are in the file, then the totals.
    expect(rows.length).toBe(json.length);
    expect(sheet.rowCount).toBe(1 + json.length + 1);
    json.forEach((row, index) => {
      for (const column of fields) {
        const expected = row[column];
        if (column === "start_date" || column === "end_date") expect(rows[index]![column]).toEqual(new Date(`${expected as string}T00:00:00Z`));
        // A figure with nothing to divide by (null in the JSON) is an empty cell.
        else expect(rows[index]![column]).toEqual(expected);
      }
    });
    const cellOf = (row: number, field: string) => sheet.getRow(row).getCell(fields.indexOf(field) + 1);
    expect(typeof cellOf(2, "ctr").value).toBe("number");
    expect(cellOf(2, "ctr").numFmt).toBe("0.00%");
    expect(cellOf(2, "ad_revenue").numFmt).toBe('"USD "#,##0.00');
    expect(cellOf(2, "impressions_total").numFmt).toBe("#,##0");
    expect(cellOf(2, "start_date").numFmt).toBe("yyyy-mm-dd");
    // Totals: counts and money summed, ratios from the sums, blank where nothing adds up.
    const sum = (field: string) => json.reduce((total, row) => total + (row[field] as number), 0);
    expect(totals).toMatchObject({
      campaign_id: "Total",
      name: null,
      start_date: null,
      impressions_total: sum("impressions_total"),
      clicks_total: sum("clicks_total"),
    });
    expect(totals!.ad_revenue).toBeCloseTo(sum("ad_revenue"), 6);
    expect(totals!.ctr).toBeCloseTo(sum("clicks_total") / sum("impressions_total"), 9);
    expect(cellOf(sheet.rowCount, "impressions_total").font?.bold).toBe(true);
  });
});

describe("downloads", () => {
  it("read on the bulk pool, and give its connection back when the client stops reading half-way", async () => {
    const { bulkPool, pgPool } = await import("@/server/db/pg-pool");
    const response = await handleCampaignListing(
      new Request(`http://tally.test/campaign/v2?${RANGE}&download=true`, { headers: { Authorization: `Bearer ${advertiserKey}` } }),
    );
    const reader = response.body!.getReader();
    const busy = () => bulkPool().totalCount - bulkPool().idleCount;
    // Read until the rows are being fetched: the cursor's connection is checked out.
    for (let chunks = 0; chunks < 50 && busy() === 0; chunks += 1) expect((await reader.read()).done).toBe(false);
    expect(busy()).toBe(1);
    // Not one of the requests' connections: those stay free for the 202s.
    expect(pgPool().totalCount - pgPool().idleCount).toBe(0);
    await reader.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(busy()).toBe(0);
    // The connection is usable: the next report answers.
    expect((await get(advertiserKey, RANGE)).status).toBe(200);
  });
});

describe("GET /campaign/:id", () => {
  const detail = (key: string, id: string, query: string) =>
    handleCampaignDetail(new Request(`http://tally.test/campaign/${encodeURIComponent(id)}?${query}`, { headers: { Authorization: `Bearer ${key}` } }));
  const zeros = {
    impressions_total: 0,
    views_total: 0,
    clicks_total: 0,
    ctr: 0,
    ad_revenue: 0,
    conversions_total: 0,
    conversion_rate: 0,
    sales_revenue: 0,
    roas: 0,
    duplicate_events: 0,
    bot_events: 0,
    invalid_events: 0,
    unverified_conversions: 0,
    unverified_sales_revenue: 0,
    uncredited_conversions: 0,
    uncredited_sales_revenue: 0,
    conversions_click: 0,
    conversions_view: 0,
    sales_revenue_click: 0,
    sales_revenue_view: 0,
    units_sold: 0,
    converted_clicks: 0,
    click_conversion_rate: null,
    halo_conversions: 0,
    halo_sales_revenue: 0,
    ntb_conversions: 0,
    ntb_sales_revenue: 0,
    ntb_rate: null,
    ecpm: null,
    avg_cpc: null,
    cpa: null,
    acos: null,
  };

  it("answers the campaign's totals, a row for every day of the range, and its ads", async () => {
    const response = await detail(advertiserKey, cpc.campaign.id, "start_date=2026-11-09&end_date=2026-11-11");
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: Record<string, unknown> & { daily: unknown[]; ads: { ad_id: string }[] } };
    expect(data).toMatchObject({ campaign_id: cpc.campaign.id, impressions_total: 5, clicks_total: 2, ad_revenue: 1, conversions_total: 1, sales_revenue: 23 });
    expect(data.daily).toEqual([
      { day: "2026-11-09", ...zeros },
      {
        day: "2026-11-10",
        impressions_total: 5,
        views_total: 0,
        clicks_total: 2,
        ctr: 0.4,
        ad_revenue: 1,
        conversions_total: 1,
        conversion_rate: 0.5,
        sales_revenue: 23,
        roas: 23,
        duplicate_events: 0,
        bot_events: 0,
        invalid_events: 0,
        // The fixture's order came without proof, from a publisher that credits such orders: credited, and unverified.
        unverified_conversions: 1,
        unverified_sales_revenue: 23,
        uncredited_conversions: 0,
        uncredited_sales_revenue: 0,
        ...ACME_ORDER_CREDIT,
        ecpm: 200,
        avg_cpc: 0.5,
        cpa: 1,
        acos: significant(1 / 23),
      },
      { day: "2026-11-11", ...zeros },
    ]);
    expect(data.ads.map((ad) => ad.ad_id)).toEqual([cpc.ad.id]);
    expect(data.ads_total).toBe(1);
  });

  it("is 404 for another account's campaign and unknown ids, and scoped for a publisher", async () => {
    for (const [key, id] of [
      [otherAdvertiserKey, cpc.campaign.id],
      [advertiserKey, "cmp_nothing"],
      [publisherKey, cpm.campaign.id],
    ] as const) {
      const response = await detail(key, id, RANGE);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: "not_found", message: `no campaign ${id}` } });
    }
    const malformed = await handleCampaignDetail(
      new Request("http://tally.test/campaign/%E0%A4%A?start_date=2026-11-01", { headers: { Authorization: `Bearer ${advertiserKey}` } }),
    );
    expect(malformed.status).toBe(404);
    const shopB = (await (await detail(publisherKey, cpc.campaign.id, RANGE)).json()) as { data: { impressions_total: number; sales_revenue: number } };
    expect(shopB.data).toMatchObject({ impressions_total: 1, sales_revenue: 0 });
    expect((await detail(advertiserKey, cpc.campaign.id, "page=2")).status).toBe(400);
  });

  it("downloads the daily rows as XLSX", async () => {
    const response = await detail(advertiserKey, cpc.campaign.id, "start_date=2026-11-09&end_date=2026-11-11&download=true");
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="campaign-${cpc.campaign.id}_2026-11-09_2026-11-11.xlsx"`);
    const { sheet, header, rows, totals } = await reportSheet(await response.arrayBuffer(), CAMPAIGN_DAILY_WORKBOOK.columns);
    expect(sheet.name).toBe("Daily");
    expect(header.slice(0, 4)).toEqual(["Day", "Impressions", "Views", "Clicks"]);
    expect(rows.length).toBe(3);
    expect(Object.values(rows[1]!).slice(0, 4)).toEqual([new Date("2026-11-10T00:00:00Z"), 5, 0, 2]);
    expect(totals).toMatchObject({ day: "Total", impressions_total: rows.reduce((n, row) => n + (row.impressions_total as number), 0) });
  });
});
