// GET /report/v2/advertisers, /report/v2/publishers and /report/network/publishers over the data of
// seedAcme (report-fixture.ts).
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { createAccount } from "@/server/accounts/create-account";
import { pgPool } from "@/server/db/pg-pool";
import { ADVERTISER_REPORT } from "@/server/pipeline/report/report-definitions";
import { significant } from "@/server/store/metrics";
import { handleAdvertiserReport, handleNetworkPublisherReport, handlePublisherReport } from "@/testing/api/checked-report-routes";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { ACME_ORDER_CREDIT, at, beacon, get, RANGE, seedAcme } from "@/testing/report-fixture";
import { reportSheet } from "@/testing/report-sheet";

let advertiserKey: string;
let publisherKey: string;
let shopAKey: string;
let acmeId: string;
let otherId: string;
let shopAId: string;
let shopBId: string;

beforeAll(async () => {
  ({ advertiserKey, publisherKey, shopAKey, acmeId, otherId, shopAId, shopBId } = await seedAcme());
});

describe("GET /report/v2/advertisers", () => {
  it("lists the advertisers of a publisher's inventory with their account fields and its figures", async () => {
    const { status, body } = await get(shopAKey, RANGE, handleAdvertiserReport);
    expect(status).toBe(200);
    expect(body.total).toBe(2);
    expect(body.data).toEqual([
      {
        advertiser: expect.stringMatching(/^Brand /),
        advertiser_id: acmeId,
        seller_id: expect.stringMatching(/^seller-/),
        // 1,000 less 2 clicks at 0.50 and 2 impressions at CPM 10.
        wallet_balance: 998.98,
        daily_budget: null,
        currency: "USD",
        impressions_total: 6,
        views_total: 0,
        clicks_total: 2,
        ctr: significant(2 / 6),
        ad_revenue: 1.02,
        conversions_total: 1,
        conversion_rate: 0.5,
        sales_revenue: 23,
        roas: significant(23 / 1.02),
        duplicate_events: 0,
        bot_events: 0,
        invalid_events: 0,
        // The fixture's order came without proof, from a publisher that credits such orders: credited, and unverified.
        unverified_conversions: 1,
        unverified_sales_revenue: 23,
        uncredited_conversions: 0,
        uncredited_sales_revenue: 0,
        ...ACME_ORDER_CREDIT,
        // 1.02 spent on 6 impressions, 2 clicks, 1 order of 23.00.
        ecpm: 170,
        avg_cpc: 0.51,
        cpa: 1.02,
        acos: significant(1_020_000 / 23_000_000), // spend over sales, both in micros
      },
      expect.objectContaining({ advertiser_id: otherId, impressions_total: 1, ad_revenue: 0.003, wallet_balance: 999.997 }),
    ]);
    // Shop B: only Acme's one impression there.
    expect((await get(publisherKey, RANGE, handleAdvertiserReport)).body.data).toEqual([
      expect.objectContaining({ advertiser_id: acmeId, impressions_total: 1, ad_revenue: 0 }),
    ]);
  });

  it("shows an advertiser only itself, and sorts by name", async () => {
    expect((await get(advertiserKey, RANGE, handleAdvertiserReport)).body.data.map((r) => r.advertiser_id)).toEqual([acmeId]);
    expect((await get(advertiserKey, `${RANGE}&advertiser_id=${otherId}`, handleAdvertiserReport)).body.total).toBe(0);
    const byName = (await get(shopAKey, `${RANGE}&order_by=advertiser&order=asc`, handleAdvertiserReport)).body.data.map((r) => r.advertiser as string);
    expect(byName).toEqual([...byName].sort());
  });
});

describe("GET /report/v2/publishers and /report/network/publishers", () => {
  it("lists an advertiser's publishers with its own figures there, and a publisher itself", async () => {
    const { body } = await get(advertiserKey, RANGE, handlePublisherReport);
    expect(body.data).toEqual([
      expect.objectContaining({
        publisher_id: shopAId,
        network_id: null,
        impressions_total: 6,
        clicks_total: 2,
        ad_revenue: 1.02,
        conversions_total: 1,
        sales_revenue: 23,
      }),
      expect.objectContaining({ publisher_id: shopBId, impressions_total: 1, clicks_total: 0 }),
    ]);
    expect((body.data[0]!.sites as string).length).toBeGreaterThan(0);
    // Shop A sees itself, with every advertiser's figures: Acme's 6 impressions and the other's 1.
    expect((await get(shopAKey, RANGE, handlePublisherReport)).body.data).toEqual([expect.objectContaining({ publisher_id: shopAId, impressions_total: 7 })]);
  });

  it("lists a network's sub-publishers for the network's key only", async () => {
    const network = await createAccount({ actor: OPERATOR, kind: "network", name: `Network ${randomUUID()}` });
    const sub = await makePublisher({ networkId: network.id });
    const brand = await makeAdvertiser();
    const onNetwork = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [network.id], bidModel: "cpm", bid: 4 });
    await beacon("impression", onNetwork, sub, "n0", at(1));
    await beacon("impression", onNetwork, sub, "n1", at(2));
    const networkKey = (await createApiKey({ actor: OPERATOR, accountId: network.id, name: "t" })).key;

    const subs = await get(networkKey, RANGE, handleNetworkPublisherReport);
    expect(subs.body).toMatchObject({
      total: 1,
      data: [expect.objectContaining({ publisher_id: sub.id, network_id: network.id, impressions_total: 2, ad_revenue: 0.008 })],
    });
    expect((await get(networkKey, RANGE, handlePublisherReport)).body.data.map((r) => r.publisher_id).sort()).toEqual([network.id, sub.id].sort());
    // The brand sees the network its campaign targets (no traffic of its own) and the sub-publisher it reached.
    const brandView = (await get((await createApiKey({ actor: OPERATOR, accountId: brand.id, name: "t" })).key, RANGE, handlePublisherReport)).body.data;
    expect(brandView.map((r) => [r.publisher_id, r.impressions_total])).toEqual([
      [sub.id, 2],
      [network.id, 0],
    ]);
    for (const key of [shopAKey, advertiserKey]) {
      const refused = await get(key, RANGE, handleNetworkPublisherReport);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ error: { code: "not_found", message: "this report is for network accounts" } });
    }
  });
});

describe("the advertiser report's XLSX", () => {
  it("shows each advertiser's money in its own currency, and leaves money totals of several currencies blank", async () => {
    await pgPool().query("UPDATE accounts SET currency = 'EUR' WHERE id = $1", [otherId]);
    try {
      const response = await handleAdvertiserReport(
        new Request(`http://tally.test/report/v2/advertisers?${RANGE}&order_by=advertiser&order=asc&download=true`, {
          headers: { Authorization: `Bearer ${shopAKey}` },
        }),
      );
      expect(response.status).toBe(200);
      const { sheet, header, fields, rows, totals } = await reportSheet(await response.arrayBuffer(), ADVERTISER_REPORT.columns);
      expect(header.slice(0, 6)).toEqual(["Advertiser", "Advertiser ID", "Seller ID", "Wallet balance", "Daily budget", "Currency"]);
      const formatOf = (n: number, field: string) => sheet.getRow(n).getCell(fields.indexOf(field) + 1).numFmt;
      const byId = new Map(rows.map((row, i) => [row.advertiser_id, { row, n: i + 2 }]));
      const acme = byId.get(acmeId)!;
      const other = byId.get(otherId)!;
      expect([acme.row.currency, other.row.currency]).toEqual(["USD", "EUR"]);
      expect([formatOf(acme.n, "ad_revenue"), formatOf(acme.n, "wallet_balance")]).toEqual(['"USD "#,##0.00', '"USD "#,##0.00']);
      expect([formatOf(other.n, "ad_revenue"), formatOf(other.n, "wallet_balance"), formatOf(other.n, "ecpm")]).toEqual([
        '"EUR "#,##0.00',
        '"EUR "#,##0.00',
        '"EUR "#,##0.00',
      ]);
      expect(other.row.ad_revenue).toBe(0.003);
      // Counts add up across currencies; money does not.
      expect(totals).toMatchObject({ advertiser: "Total", impressions_total: 7, ad_revenue: null, sales_revenue: null, wallet_balance: null, currency: null });
    } finally {
      await pgPool().query("UPDATE accounts SET currency = 'USD' WHERE id = $1", [otherId]);
    }
  });
});
