// The campaign domain's rules hold for every caller, with no tRPC in the path: what a campaign and
// its ads may refer to (account kinds, whose products), and who may see and change them, as the
// operator (the seed, the CLIs) and as dashboard viewers built by hand.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import type { Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { createAd } from "./create-ad";
import { createCampaign } from "./create-campaign";
import { createProduct } from "./create-product";
import { getCampaign } from "./get-campaign";
import { listCampaigns } from "./list-campaigns";
import { listProducts } from "./list-products";
import { listCatalogue, removeCatalogueEntry, setCatalogueEntry, skuConflicts } from "./publisher-catalogue";
import { adSettings, setAdStatus, updateAd } from "./update-ad";
import { campaignSettings, setCampaignStatus, updateCampaign } from "./update-campaign";

const staff: Viewer = { userId: "usr_staff", email: "staff@rules.test", name: "Staff", role: "staff", accountId: null };
const member = (accountId: string): Viewer => ({
  userId: `usr_${accountId}`,
  email: `${accountId}@rules.test`,
  name: accountId,
  role: "member",
  accountId,
  memberRole: "admin",
});

let shop: Awaited<ReturnType<typeof makePublisher>>;
let brand: Awaited<ReturnType<typeof makeAdvertiser>>;
let rival: Awaited<ReturnType<typeof makeAdvertiser>>;
let brandProduct: string;
let rivalProduct: string;

const settings = (overrides: { publisherIds?: string[]; productRefs?: string[] } = {}) => ({
  name: `Campaign ${randomUUID().slice(0, 6)}`,
  type: "product" as const,
  status: "paused" as const,
  startDate: "2026-12-01",
  bidModel: "cpc" as const,
  bid: 0.4,
  publisherIds: overrides.publisherIds ?? [shop.id],
  productRefs: overrides.productRefs ?? [brandProduct],
});

beforeAll(async () => {
  [shop, brand, rival] = [await makePublisher(), await makeAdvertiser(), await makeAdvertiser()];
  brandProduct = (await createProduct({ actor: OPERATOR, advertiserId: brand.id, sku: `TEA-${randomUUID().slice(0, 8)}`, name: "Tea" })).id;
  rivalProduct = (await createProduct({ actor: OPERATOR, advertiserId: rival.id, sku: `MUG-${randomUUID().slice(0, 8)}`, name: "Mug" })).id;
});

describe("createCampaign, called directly", () => {
  it("refuses a publisher id that is an advertiser account, another advertiser's product, and a publisher as the advertiser", async () => {
    await expect(createCampaign({ actor: OPERATOR, advertiserId: brand.id, ...settings({ publisherIds: [shop.id, rival.id] }) })).rejects.toMatchObject({
      code: "bad_request",
      message: "publisherIds: every publisher must be a publisher or network account",
    });
    await expect(createCampaign({ actor: OPERATOR, advertiserId: brand.id, ...settings({ productRefs: [brandProduct, rivalProduct] }) })).rejects.toMatchObject(
      {
        code: "bad_request",
        message: "productRefs: every product must be one of the advertiser's",
      },
    );
    await expect(createCampaign({ actor: OPERATOR, advertiserId: shop.id, ...settings({ productRefs: [] }) })).rejects.toMatchObject({
      code: "bad_request",
      message: "campaigns belong to advertiser accounts",
    });
    // Staff and the advertiser's own users meet the same rules.
    for (const actor of [staff, member(brand.id)]) {
      await expect(createCampaign({ advertiserId: brand.id, ...settings({ productRefs: [rivalProduct] }), actor })).rejects.toMatchObject({
        code: "bad_request",
      });
    }
    expect(await db.campaign.count({ where: { advertiserId: { in: [brand.id, shop.id] } } })).toBe(0);
  });

  it("creates for the advertiser's users and staff, never for another account's, and lets only the operator choose the id", async () => {
    await expect(createCampaign({ advertiserId: brand.id, ...settings(), actor: member(rival.id) })).rejects.toMatchObject({
      code: "not_found",
      message: "no such account",
    });
    const mine = await createCampaign({ id: `cmp_chosen_${randomUUID().slice(0, 8)}`, advertiserId: brand.id, ...settings(), actor: member(brand.id) });
    expect(mine.id).not.toMatch(/^cmp_chosen_/);
    const chosen = `cmp_seeded_${randomUUID().slice(0, 8)}`;
    expect((await createCampaign({ id: chosen, advertiserId: brand.id, ...settings(), actor: OPERATOR })).id).toBe(chosen);
    expect((await createCampaign({ advertiserId: brand.id, ...settings(), actor: staff })).advertiserId).toBe(brand.id);
  });
});

describe("changing a campaign, called directly", () => {
  it("applies the same references, and answers another account's user as if the campaign did not exist", async () => {
    const { id } = await createCampaign({ actor: OPERATOR, advertiserId: brand.id, ...settings() });
    const current = await campaignSettings({ actor: member(brand.id), id });
    await expect(updateCampaign({ actor: OPERATOR, id, settings: { ...current, publisherIds: [rival.id] } })).rejects.toMatchObject({ code: "bad_request" });
    await expect(updateCampaign({ actor: OPERATOR, id, settings: { ...current, productRefs: [rivalProduct] } })).rejects.toMatchObject({
      code: "bad_request",
    });

    const stranger = member(rival.id);
    const unknown = { code: "not_found", message: "no such campaign" };
    await expect(campaignSettings({ actor: stranger, id })).rejects.toMatchObject(unknown);
    await expect(campaignSettings({ actor: stranger, id: "cmp_unknown" })).rejects.toMatchObject(unknown);
    await expect(updateCampaign({ actor: stranger, id, settings: current })).rejects.toMatchObject(unknown);
    await expect(setCampaignStatus({ actor: stranger, id, status: "paused" })).rejects.toMatchObject(unknown);
    await expect(getCampaign({ actor: stranger, id, startDate: "2026-12-01", endDate: "2026-12-02" })).rejects.toMatchObject(unknown);
    await expect(listCampaigns({ actor: stranger, accountId: brand.id, startDate: "2026-12-01", endDate: "2026-12-02" })).rejects.toMatchObject({
      code: "not_found",
    });

    await setCampaignStatus({ actor: member(brand.id), id, status: "paused" });
    await updateCampaign({ actor: staff, id, settings: { ...current, name: "Renamed", status: "paused" } });
    expect(await campaignSettings({ actor: OPERATOR, id })).toMatchObject({ name: "Renamed", status: "paused", startDate: "2026-12-01" });
  });
});

describe("ads and products, called directly", () => {
  it("keep an ad's products the advertiser's own and its campaign the actor's", async () => {
    const { id: campaignId } = await createCampaign({ actor: OPERATOR, advertiserId: brand.id, ...settings() });
    const ad = { campaignId, name: "Tea", type: "product" as const };
    await expect(createAd({ actor: OPERATOR, ...ad, productRefs: [rivalProduct] })).rejects.toMatchObject({
      code: "bad_request",
      message: "productRefs: every product must be one of the advertiser's",
    });
    await expect(createAd({ actor: OPERATOR, ...ad, campaignId: "cmp_unknown" })).rejects.toMatchObject({ code: "not_found", message: "no such campaign" });
    await expect(createAd({ ...ad, actor: member(rival.id) })).rejects.toMatchObject({ code: "not_found", message: "no such campaign" });
    const { id } = await createAd({ ...ad, productRefs: [brandProduct], actor: member(brand.id) });

    await expect(updateAd({ actor: OPERATOR, id, settings: { ...ad, productRefs: [rivalProduct] } })).rejects.toMatchObject({ code: "bad_request" });
    const stranger = member(rival.id);
    for (const call of [
      () => adSettings({ actor: stranger, id }),
      () => updateAd({ actor: stranger, id, settings: ad }),
      () => setAdStatus({ actor: stranger, id, status: "paused" }),
      () => adSettings({ actor: OPERATOR, id: "ad_unknown" }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "not_found", message: "no such ad" });
    }
    await setAdStatus({ actor: member(brand.id), id, status: "paused" });
    expect(await adSettings({ actor: staff, id })).toMatchObject({ status: "paused", productRefs: [brandProduct], advertiserId: brand.id });
  });

  it("add products to advertiser accounts the actor may manage, one per SKU", async () => {
    const sku = `BEANS-${randomUUID().slice(0, 8)}`;
    await expect(createProduct({ actor: OPERATOR, advertiserId: shop.id, sku, name: "Beans" })).rejects.toMatchObject({
      code: "bad_request",
      message: "products belong to advertiser accounts",
    });
    await expect(createProduct({ advertiserId: brand.id, sku, name: "Beans", actor: member(rival.id) })).rejects.toMatchObject({ code: "not_found" });
    await createProduct({ advertiserId: brand.id, sku, name: "Beans", actor: member(brand.id) });
    await expect(createProduct({ actor: OPERATOR, advertiserId: brand.id, sku: ` ${sku} `, name: "Beans again" })).rejects.toMatchObject({
      code: "bad_request",
      message: `the advertiser already has a product with SKU ${sku}`,
    });
    await expect(listProducts({ actor: member(rival.id), advertiserId: brand.id })).rejects.toMatchObject({ code: "not_found" });
    expect((await listProducts({ actor: member(brand.id), advertiserId: brand.id })).map((p) => p.sku)).toContain(sku);
  });
});

describe("publisher catalogues, called directly", () => {
  it("are kept by account managers and the operator, and read by the publisher's own users", async () => {
    const sku = `PASTE-${randomUUID().slice(0, 8)}`;
    const entry = { publisherId: shop.id, sku, advertiserId: brand.id };
    for (const who of [member(shop.id), member(brand.id)]) {
      await expect(setCatalogueEntry({ ...entry, actor: who })).rejects.toMatchObject({ code: "forbidden" });
      await expect(removeCatalogueEntry({ actor: who, publisherId: shop.id, sku })).rejects.toMatchObject({ code: "forbidden" });
      await expect(skuConflicts({ actor: who })).rejects.toMatchObject({ code: "forbidden" });
    }
    await setCatalogueEntry({ ...entry, actor: staff });
    expect((await listCatalogue({ actor: member(shop.id), publisherId: shop.id })).map((e) => e.sku)).toEqual([sku]);
    await expect(listCatalogue({ actor: member(brand.id), publisherId: shop.id })).rejects.toMatchObject({ code: "not_found" });
    await removeCatalogueEntry({ actor: OPERATOR, publisherId: shop.id, sku });
    expect(await listCatalogue({ actor: staff, publisherId: shop.id })).toEqual([]);
  });
});
