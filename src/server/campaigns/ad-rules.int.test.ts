// An ad fits its campaign, whoever calls: an ad kind the campaign runs (no banner among sponsored
// products) and only the campaign's own products, named by SKU when refused; and the campaign's
// edits may not leave one of its ads out of fit. A refusal stores nothing.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import type { Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { createAd } from "./create-ad";
import { createCampaign } from "./create-campaign";
import { createProduct } from "./create-product";
import { adSettings, updateAd } from "./update-ad";
import { campaignSettings, updateCampaign } from "./update-campaign";

const member = (accountId: string): Viewer => ({
  userId: `usr_${accountId}`,
  email: `${accountId}@ads.test`,
  name: accountId,
  role: "member",
  accountId,
  memberRole: "admin",
});
const banner = { type: "banner" as const, size: "300x250", mediaUrl: "/demo/media/banner-300x250.svg" };

let brand: Viewer;
let productCampaign: string;
let displayCampaign: string;
let beans: { id: string; sku: string };
let mugs: { id: string; sku: string };

const adsOf = (campaignId: string) => db.ad.count({ where: { campaignId } });

beforeAll(async () => {
  const shop = await makePublisher();
  const advertiser = await makeAdvertiser();
  brand = member(advertiser.id);
  beans = await createProduct({ actor: OPERATOR, advertiserId: advertiser.id, sku: `BEANS-${randomUUID().slice(0, 8)}`, name: "Beans" });
  // The brand's own product, but not one this campaign promotes.
  mugs = await createProduct({ actor: OPERATOR, advertiserId: advertiser.id, sku: `MUG-${randomUUID().slice(0, 8)}`, name: "Mug" });
  const settings = { status: "paused" as const, startDate: "2026-12-01", bidModel: "cpc" as const, bid: 0.4, publisherIds: [shop.id] };
  productCampaign = (await createCampaign({ actor: brand, advertiserId: advertiser.id, name: "Beans", type: "product", ...settings, productRefs: [beans.id] }))
    .id;
  displayCampaign = (await createCampaign({ actor: brand, advertiserId: advertiser.id, name: "Banners", type: "display", ...settings, productRefs: [] })).id;
});

describe("an ad's kind and products", () => {
  it("refuses a SKU that is not one of the campaign's, naming it, and stores nothing", async () => {
    await expect(
      createAd({ actor: brand, campaignId: productCampaign, name: "Mugs", type: "product", productRefs: [beans.id, mugs.id] }),
    ).rejects.toMatchObject({
      code: "bad_request",
      message: `productRefs: SKU ${mugs.sku} is not one of the campaign's products`,
    });
    expect(await adsOf(productCampaign)).toBe(0);
    expect(await db.adProduct.count({ where: { productRef: mugs.id } })).toBe(0);
  });

  it("refuses a banner in a sponsored products campaign, and a product ad in a display campaign", async () => {
    await expect(createAd({ actor: brand, campaignId: productCampaign, name: "Banner", ...banner })).rejects.toMatchObject({
      code: "bad_request",
      message: "type: a product campaign runs product ads, not banner ads",
    });
    await expect(createAd({ actor: OPERATOR, campaignId: displayCampaign, name: "Beans", type: "product" })).rejects.toMatchObject({
      code: "bad_request",
      message: "type: a display campaign runs banner ads, not product ads",
    });
    await expect(
      createAd({ actor: OPERATOR, campaignId: displayCampaign, name: "Spot", type: "video", size: "640x360", mediaUrl: "/v.mp4" }),
    ).rejects.toMatchObject({
      code: "bad_request",
    });
    expect([await adsOf(productCampaign), await adsOf(displayCampaign)]).toEqual([0, 0]);
  });

  it("holds on edits: an ad keeps to its campaign, and the campaign to its ads", async () => {
    const { id } = await createAd({ actor: brand, campaignId: productCampaign, name: "Beans", type: "product", productRefs: [beans.id] });
    await createAd({ actor: brand, campaignId: displayCampaign, name: "Leaderboard", ...banner });

    await expect(updateAd({ actor: brand, id, settings: { name: "Beans", type: "product", productRefs: [mugs.id] } })).rejects.toMatchObject({
      message: `productRefs: SKU ${mugs.sku} is not one of the campaign's products`,
    });
    await expect(updateAd({ actor: brand, id, settings: { name: "Beans", ...banner } })).rejects.toMatchObject({ code: "bad_request" });
    expect(await adSettings({ actor: brand, id })).toMatchObject({ type: "product", productRefs: [beans.id] });

    // The campaign may not drop the SKU its ad promotes, nor turn into a kind its ads are not.
    const product = await campaignSettings({ actor: brand, id: productCampaign });
    await expect(updateCampaign({ actor: brand, id: productCampaign, settings: { ...product, productRefs: [mugs.id] } })).rejects.toMatchObject({
      code: "bad_request",
      message: `productRefs: SKU ${beans.sku} is promoted by the campaign's ad "Beans"`,
    });
    const display = await campaignSettings({ actor: brand, id: displayCampaign });
    await expect(updateCampaign({ actor: brand, id: displayCampaign, settings: { ...display, type: "product" } })).rejects.toMatchObject({
      code: "bad_request",
      message: 'type: a product campaign cannot keep its banner ad "Leaderboard"; archive the ad first',
    });
    expect((await campaignSettings({ actor: brand, id: productCampaign })).productRefs).toEqual([beans.id]);
    expect((await campaignSettings({ actor: brand, id: displayCampaign })).type).toBe("display");

    // Adding products stays free, and an archived ad holds nothing back.
    await updateCampaign({ actor: brand, id: productCampaign, settings: { ...product, productRefs: [beans.id, mugs.id] } });
    await updateAd({ actor: brand, id, settings: { name: "Beans and mugs", type: "product", productRefs: [beans.id, mugs.id] } });
    await updateAd({ actor: brand, id, settings: { name: "Beans and mugs", type: "product", status: "archived", productRefs: [beans.id, mugs.id] } });
    await updateCampaign({ actor: brand, id: productCampaign, settings: { ...product, productRefs: [beans.id] } });
    expect((await campaignSettings({ actor: brand, id: productCampaign })).productRefs).toEqual([beans.id]);
  });
});
