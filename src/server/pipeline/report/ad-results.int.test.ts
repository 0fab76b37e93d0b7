// GET /ad/results/v2, JSON and XLSX, over the data of seedAcme (report-fixture.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { AD_RESULTS } from "@/server/pipeline/report/report-definitions";
import { significant } from "@/server/store/metrics";
import { handleAdResults } from "@/testing/api/checked-report-routes";
import { ACME_ORDER_CREDIT, type Fixture, get, RANGE, seedAcme } from "@/testing/report-fixture";
import { reportSheet } from "@/testing/report-sheet";

let advertiserKey: string;
let otherAdvertiserKey: string;
let publisherKey: string;
let cpc: Fixture;
let cpm: Fixture;

beforeAll(async () => {
  ({ advertiserKey, otherAdvertiserKey, publisherKey, cpc, cpm } = await seedAcme());
});

describe("GET /ad/results/v2", () => {
  it("lists the advertiser's ads with their bids, SKUs and totals", async () => {
    const { status, body } = await get(advertiserKey, RANGE, handleAdResults);
    expect(status).toBe(200);
    expect(body).toMatchObject({ page: 1, per_page: 50, total: 2 });
    expect(body.data).toEqual([
      {
        ad_id: cpc.ad.id,
        name: cpc.ad.name,
        campaign_id: cpc.campaign.id,
        advertiser_id: cpc.campaign.advertiserId,
        ad_type: "product",
        ad_size: null,
        ad_status: "active",
        ad_media_url: null,
        cpm: null,
        cpc: 0.5,
        product_sku: cpc.products
          .map((p) => p.sku)
          .sort()
          .join(","),
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
        ad_id: cpm.ad.id,
        ad_type: "banner",
        ad_size: "300x250",
        cpm: 10,
        cpc: null,
        product_sku: "",
        impressions_total: 2,
        ad_revenue: 0.02,
      }),
    ]);
  });

  it("filters by ad_id and campaign_id, keeps tenancy, and refuses parameters it does not take", async () => {
    expect((await get(advertiserKey, `${RANGE}&ad_id=${cpm.ad.id}`, handleAdResults)).body.data.map((r) => r.ad_id)).toEqual([cpm.ad.id]);
    expect((await get(otherAdvertiserKey, `${RANGE}&ad_id=${cpm.ad.id}`, handleAdResults)).body).toEqual({ data: [], page: 1, per_page: 50, total: 0 });
    expect((await get(publisherKey, RANGE, handleAdResults)).body.data).toEqual([expect.objectContaining({ ad_id: cpc.ad.id, impressions_total: 1 })]);
    expect((await get(advertiserKey, "publisher_id=x", handleAdResults)).status).toBe(400);
    expect((await get(advertiserKey, "order_by=start_date", handleAdResults)).status).toBe(400);
  });

  it("downloads the same rows as XLSX", async () => {
    const response = await handleAdResults(
      new Request(`http://tally.test/ad/results/v2?${RANGE}&download=true`, { headers: { Authorization: `Bearer ${advertiserKey}` } }),
    );
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="ad-results_2026-11-01_2026-11-30.xlsx"');
    const { header, fields, rows: fromSheet, totals } = await reportSheet(await response.arrayBuffer(), AD_RESULTS.columns);
    const json = (await get(advertiserKey, RANGE, handleAdResults)).body.data;
    expect(fields).toEqual(Object.keys(json[0]!));
    expect(header.slice(0, 2)).toEqual(["Ad ID", "Ad"]);
    expect(header[header.length - 1]).toBe("ACoS");
    // Bids are not added up: their totals are blank.
    expect(totals).toMatchObject({
      ad_id: "Total",
      cpm: null,
      cpc: null,
      impressions_total: json.reduce((n, row) => n + (row.impressions_total as number), 0),
    });
    expect(fromSheet).toEqual(json.map((row) => ({ ...row, ad_size: row.ad_size ?? null, product_sku: row.product_sku === "" ? null : row.product_sku })));
  });
});
