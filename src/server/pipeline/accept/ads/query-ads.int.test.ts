import { describe, expect, it } from "vitest";
import { env } from "@/env";
import { db } from "@/server/db/client";
import { verifyBeaconToken } from "@/server/pipeline/accept/beacons/beacon-token";
import { askForAds } from "@/testing/events-client";
import { daysFromToday, makeAdvertiser, makeCampaignWithAd, makePublisher, today } from "@/testing/fixtures";

const tokenOf = (url: string) => url.split("/").pop()!;

describe("POST /v1/ads", () => {
  it("hands out eligible ads with signed impression, view and click addresses carrying the served ad", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const { ad, campaign } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], ad: { size: "728x90" } });

    const { status, body } = await askForAds({
      publisher_id: publisher.id,
      session_id: "s-1",
      context: "home",
      placements: [{ name: "top", types: ["banner"], size: "728x90" }],
    });
    expect(status).toBe(200);
    expect(body.request_id).toMatch(/^[0-9a-f-]{36}$/);
    const served = body.ads.top!;
    expect(served).toHaveLength(1);
    expect(served[0]).toMatchObject({ ad_id: ad.id, campaign_id: campaign.id, type: "banner", size: "728x90" });
    for (const kind of ["impression", "view", "click"] as const) {
      const url = served[0]![`${kind}_url`];
      expect(url.startsWith(`http://tally.test/v1/beacon/${kind}/`)).toBe(true);
      expect(verifyBeaconToken(tokenOf(url), kind, env().BEACON_SIGNING_KEYS)).toMatchObject({
        kind,
        requestId: body.request_id,
        adId: ad.id,
        campaignId: campaign.id,
        advertiserId: advertiser.id,
        publisherId: publisher.id,
        site: publisher.sites[0]!.name,
        placementName: "top",
        context: "home",
        adType: "banner",
        adSize: "728x90",
      });
    }
  });

  it("ranks by effective CPM (CPC × 1% × 1000), deterministically, and fills placements in order without repeats", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const cpm4 = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpm", bid: 4 });
    const cpc05 = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpc", bid: 0.5 }); // eCPM 5
    const cpm3 = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpm", bid: 3 });
    const query = {
      publisher_id: publisher.id,
      session_id: "s",
      context: "home",
      placements: [
        { name: "a", types: ["banner"], quantity: 2 },
        { name: "b", types: ["banner"], quantity: 2 },
      ],
    };
    const first = await askForAds(query);
    expect(first.body.ads.a!.map((ad) => ad.ad_id)).toEqual([cpc05.ad.id, cpm4.ad.id]);
    expect(first.body.ads.b!.map((ad) => ad.ad_id)).toEqual([cpm3.ad.id]);
    const second = await askForAds(query);
    expect(second.body.ads.a!.map((ad) => ad.ad_id)).toEqual(first.body.ads.a!.map((ad) => ad.ad_id));
  });

  it("matches product campaigns through their products by SKU, category or search term", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const { ad } = await makeCampaignWithAd({
      advertiserId: advertiser.id,
      publisherIds: [publisher.id],
      type: "product",
      products: [{ sku: "BEANS-1KG", name: "Espresso Beans 1 kg", category: "coffee" }],
    });
    const ask = (extra: object) =>
      askForAds({ publisher_id: publisher.id, session_id: "s", context: "search", placements: [{ name: "p", types: ["product"] }], ...extra });
    expect((await ask({ term: "espresso beans" })).body.ads.p).toEqual([expect.objectContaining({ ad_id: ad.id, sku: "BEANS-1KG" })]);
    expect((await ask({ category: "Coffee" })).body.ads.p).toHaveLength(1);
    expect((await ask({ product_sku: "BEANS-1KG" })).body.ads.p).toHaveLength(1);
    expect((await ask({ term: "tent" })).body.ads.p).toEqual([]);
    expect((await ask({ product_sku: "OTHER" })).body.ads.p).toEqual([]);
  });

  it("stops serving a campaign that is paused, outside its dates, out of wallet, or past its daily budget", async () => {
    const publisher = await makePublisher();
    const ask = async () =>
      (
        await askForAds({ publisher_id: publisher.id, session_id: "s", context: "home", placements: [{ name: "x", types: ["banner"], quantity: 10 }] })
      ).body.ads.x!.map((a) => a.ad_id);
    const rich = await makeAdvertiser({ wallet: 100 });
    const live = await makeCampaignWithAd({ advertiserId: rich.id, publisherIds: [publisher.id] });
    const paused = await makeCampaignWithAd({ advertiserId: rich.id, publisherIds: [publisher.id], status: "paused" });
    const future = await makeCampaignWithAd({ advertiserId: rich.id, publisherIds: [publisher.id], startDate: daysFromToday(2) });
    const ended = await makeCampaignWithAd({ advertiserId: rich.id, publisherIds: [publisher.id], startDate: daysFromToday(-9), endDate: daysFromToday(-1) });
    const broke = await makeAdvertiser({ wallet: 0 });
    const noWallet = await makeCampaignWithAd({ advertiserId: broke.id, publisherIds: [publisher.id] });
    const capped = await makeCampaignWithAd({ advertiserId: rich.id, publisherIds: [publisher.id], dailyBudget: 1 });
    const otherPublisher = await makePublisher();
    const elsewhere = await makeCampaignWithAd({ advertiserId: rich.id, publisherIds: [otherPublisher.id] });

    expect(await ask()).toEqual(expect.arrayContaining([live.ad.id, capped.ad.id]));
    for (const excluded of [paused, future, ended, noWallet, elsewhere]) expect(await ask()).not.toContain(excluded.ad.id);

    await db.campaignDailySpend.create({ data: { campaignId: capped.campaign.id, day: new Date(`${today()}T00:00:00Z`), spendMicros: 1_000_000n } });
    expect(await ask()).not.toContain(capped.ad.id);
    expect(await ask()).toContain(live.ad.id);
  });

  it("serves a network's campaigns on its sub-publishers", async () => {
    const network = await db.account.create({ data: { id: `net_${Date.now()}`, kind: "network", name: "Net" } });
    const sub = await makePublisher({ networkId: network.id });
    const advertiser = await makeAdvertiser();
    const { ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [network.id] });
    const { body } = await askForAds({ publisher_id: sub.id, session_id: "s", context: "home", placements: [{ name: "x", types: ["banner"] }] });
    expect(body.ads.x!.map((a) => a.ad_id)).toEqual([ad.id]);
  });

  it("answers 422 with Ajv entries for an unknown publisher, a bad body, or a missing site of a multi-site publisher", async () => {
    const unknown = await askForAds({ publisher_id: "pub_nope", session_id: "s", context: "home", placements: [{ name: "x", types: ["banner"] }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual([
      {
        instancePath: "/publisher_id",
        schemaPath: "#/properties/publisher_id",
        keyword: "publisher",
        params: { publisher_id: "pub_nope" },
        message: "must be a known publisher",
      },
    ]);

    const bad = await askForAds({ session_id: 5, context: "moon", placements: [{ name: "x", types: ["poster"] }] });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          instancePath: "",
          keyword: "required",
          params: { missingProperty: "publisher_id" },
          message: "must have required property 'publisher_id'",
        }),
        expect.objectContaining({ instancePath: "/session_id", keyword: "type" }),
        expect.objectContaining({ instancePath: "/context", keyword: "enum" }),
        expect.objectContaining({ instancePath: "/placements/0/types/0", keyword: "enum" }),
      ]),
    );

    const multi = await makePublisher({ sites: [{ name: "web", domain: "web.example" }, { name: "app" }] });
    const query = { publisher_id: multi.id, session_id: "s", context: "home", placements: [{ name: "x", types: ["banner"] }] };
    const missing = await askForAds(query);
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual([
      { instancePath: "", schemaPath: "#/required", keyword: "required", params: { missingProperty: "site" }, message: "must have required property 'site'" },
    ]);
    expect((await askForAds({ ...query, site: "app" })).status).toBe(200);
    expect((await askForAds({ ...query, site: "nope" })).status).toBe(422);
    expect((await askForAds(query, { Origin: "https://www.web.example" })).status).toBe(200);
  });
});
