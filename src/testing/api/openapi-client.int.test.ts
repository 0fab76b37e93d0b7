// A client generated from the API document (openapi-typescript types, openapi-fetch) reads every
// report route with an API key, through Tally's route handlers in this process; each answer is
// checked against the document (in-process-fetch.ts) and read through the generated types.
import createClient from "openapi-fetch";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { seedAcme, seedNetworkImpression } from "@/testing/report-fixture";
import { inProcessFetch } from "./in-process-fetch";
import type { paths } from "./tally-api";

const client = createClient<paths, `${string}/json`>({ baseUrl: "http://tally.test", fetch: inProcessFetch });
const range = { start_date: "2026-11-01", end_date: "2026-11-30" };
const withKey = (key: string) => ({ Authorization: `Bearer ${key}` });

let acme: Awaited<ReturnType<typeof seedAcme>>;
let networkKey: string;

beforeAll(async () => {
  acme = await seedAcme();
  const { networkId } = await seedNetworkImpression();
  networkKey = (await createApiKey({ actor: OPERATOR, accountId: networkId, name: "t" })).key;
});

describe("a client generated from /openapi.json", () => {
  it("reads the campaigns, one campaign, the ads and both detailed reports as an advertiser", async () => {
    const headers = withKey(acme.advertiserKey);
    const campaigns = await client.GET("/campaign/v2", { params: { query: { ...range, order_by: "name", order: "asc" } }, headers });
    expect(campaigns.response.status).toBe(200);
    expect(campaigns.data?.data.map((row) => row.campaign_id).sort()).toEqual([acme.cpc.campaign.id, acme.cpm.campaign.id].sort());

    const one = await client.GET("/campaign/{id}", { params: { path: { id: acme.cpc.campaign.id }, query: range }, headers });
    expect(one.data?.data).toMatchObject({ campaign_id: acme.cpc.campaign.id, clicks_total: 2, conversions_total: 1, ads_total: 1 });

    const ads = await client.GET("/ad/results/v2", { params: { query: { ...range, campaign_id: acme.cpc.campaign.id } }, headers });
    expect(ads.data?.data.map((row) => row.ad_id)).toEqual([acme.cpc.ad.id]);

    const campaignDays = await client.GET("/report/advertisers/campaigns-detailed", { params: { query: { ...range, per_page: 10 } }, headers });
    expect(campaignDays.data?.data.every((row) => row.day === "2026-11-10")).toBe(true);
    expect(campaignDays.data?.per_page).toBe(10);

    const adDays = await client.GET("/report/advertisers/ads-detailed", { params: { query: range }, headers });
    expect(adDays.data?.data.find((row) => row.ad_id === acme.cpc.ad.id)).toMatchObject({ level: "ad", impressions_total: 5, clicks_total: 2 });
  });

  it("reads the advertiser and publisher reports as a publisher, and the network's sub-publishers as the network", async () => {
    const advertisers = await client.GET("/report/v2/advertisers", { params: { query: range }, headers: withKey(acme.shopAKey) });
    expect(advertisers.data?.data.map((row) => row.advertiser_id).sort()).toEqual([acme.acmeId, acme.otherId].sort());

    const publishers = await client.GET("/report/v2/publishers", { params: { query: range }, headers: withKey(acme.shopAKey) });
    expect(publishers.data?.data).toEqual([expect.objectContaining({ publisher_id: acme.shopAId, impressions_total: 7 })]);

    const subs = await client.GET("/report/network/publishers", { params: { query: range }, headers: withKey(networkKey) });
    expect(subs.data?.total).toBe(1);
    expect(subs.data?.data[0]).toMatchObject({ impressions_total: 1 });
  });

  it("downloads a report as XLSX, and gets the documented errors", async () => {
    const file = await client.GET("/campaign/v2", {
      params: { query: { ...range, download: true } },
      headers: withKey(acme.advertiserKey),
      parseAs: "arrayBuffer",
    });
    expect(file.response.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(
      Buffer.from(file.data as ArrayBuffer)
        .subarray(0, 2)
        .toString(),
    ).toBe("PK");

    const noKey = await client.GET("/report/v2/advertisers", { params: { query: range } });
    expect(noKey.response.status).toBe(401);
    expect(noKey.error?.error.code).toBe("unauthorized");

    const badRange = await client.GET("/report/v2/advertisers", {
      params: { query: { start_date: "2026-12-01", end_date: "2026-11-01" } },
      headers: withKey(acme.shopAKey),
    });
    expect(badRange.response.status).toBe(400);
    expect(badRange.error?.error.message).toMatch(/start_date/);

    const notNetwork = await client.GET("/report/network/publishers", { params: { query: range }, headers: withKey(acme.shopAKey) });
    expect(notNetwork.response.status).toBe(404);
  });

  it("fetches the document it was generated from", async () => {
    const document = await client.GET("/openapi.json");
    expect(document.response.headers.get("access-control-allow-origin")).toBe("*");
    expect(document.data).toMatchObject({ openapi: "3.1.0", servers: [{ url: "http://tally.test" }] });
  });
});
