import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { createDestination } from "@/server/pipeline/export/destinations/destinations";
import type { EventKind } from "@/server/store/settle-types";
import { pipelineStatus } from "@/server/upkeep/pipeline-status";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle } from "@/testing/settle";
import { createCaller } from "../root";

let staff: Viewer;
let shopUser: Viewer;
let brandUser: Viewer;
let shopId: string;
let brandId: string;
let otherShopId: string;
const day = "2026-11-10";
const range = { startDate: "2026-11-09", endDate: "2026-11-11" };

async function viewer(email: string, role: "staff" | "member", accountId?: string): Promise<Viewer> {
  await createUser({ email, name: email, password: "correct horse battery", role, accountId });
  return (await signIn(email, "correct horse battery")).viewer;
}
const as = (v: Viewer | null) => createCaller({ viewer: v });

beforeAll(async () => {
  const shop = await makePublisher();
  const otherShop = await makePublisher();
  const brand = await makeAdvertiser();
  [shopId, otherShopId, brandId] = [shop.id, otherShop.id, brand.id];
  const { campaign, ad } = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [shop.id, otherShop.id], bidModel: "cpm", bid: 10 });
  const beacon = (publisher: typeof shop, kind: EventKind, session: string, minutes: number) =>
    recordAndSettle({
      claims: servedClaims({ ad, campaign, publisher }, session, { kind, at: new Date(Date.parse(`${day}T10:00:00Z`) + minutes * 60_000) }),
      body: { session_id: session },
      userAgent: CHROME,
      now: new Date(Date.parse(`${day}T10:00:00Z`) + minutes * 60_000),
    });
  await beacon(shop, "impression", "a", 0);
  await beacon(shop, "impression", "b", 1);
  await beacon(shop, "click", "b", 2);
  await beacon(otherShop, "impression", "c", 3);
  staff = await viewer("staff@stats.test", "staff");
  shopUser = await viewer("shop@stats.test", "member", shop.id);
  brandUser = await viewer("brand@stats.test", "member", brand.id);
});

describe("stats.overview", () => {
  it("gives each viewer the totals and days of what they may see", async () => {
    const forShop = await as(shopUser).stats.overview(range);
    expect(forShop.daily.map((d) => d.day)).toEqual(["2026-11-09", "2026-11-10", "2026-11-11"]);
    expect(forShop.total).toMatchObject({ impressions_total: 2, clicks_total: 1, ctr: 0.5, ad_revenue: 0.02 });
    expect(forShop.daily[1]).toMatchObject({ impressions_total: 2, clicks_total: 1 });
    // The advertiser sees its campaign on both publishers; staff pick any account.
    expect((await as(brandUser).stats.overview(range)).total).toMatchObject({ impressions_total: 3, clicks_total: 1, ad_revenue: 0.03 });
    expect((await as(staff).stats.overview({ ...range, accountId: otherShopId })).total).toMatchObject({ impressions_total: 1, clicks_total: 0 });
    expect((await as(staff).stats.overview(range)).total.impressions_total).toBeGreaterThanOrEqual(3);
  });

  it("refuses the signed-out, other accounts' ids and malformed ranges", async () => {
    await expect(as(null).stats.overview(range)).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(as(shopUser).stats.overview({ ...range, accountId: otherShopId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(brandUser).stats.overview({ ...range, accountId: shopId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(staff).stats.overview({ ...range, accountId: "acc_unknown" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(staff).stats.overview({ startDate: "2026-11-12", endDate: "2026-11-01" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(staff).stats.overview({ startDate: "2025-01-01", endDate: "2026-11-01" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(staff).stats.overview({ startDate: "2026-13-01", endDate: "2026-11-01" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});

describe("accounts.list", () => {
  it("lists every account for staff and only their own for a member", async () => {
    expect((await as(shopUser).accounts.list()).map((a) => a.id)).toEqual([shopId]);
    expect((await as(brandUser).accounts.list()).map((a) => a.id)).toEqual([brandId]);
    expect((await as(staff).accounts.list()).map((a) => a.id)).toEqual(expect.arrayContaining([shopId, brandId, otherShopId]));
    await expect(as(null).accounts.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("campaigns procedures", () => {
  it("list and open the viewer's campaigns only", async () => {
    const forBrand = await as(brandUser).campaigns.list(range);
    expect(forBrand.campaigns).toHaveLength(1);
    const campaignId = forBrand.campaigns[0]!.campaign_id;
    expect(forBrand.campaigns[0]).toMatchObject({ impressions_total: 3, clicks_total: 1, advertiser_id: brandId });
    // The shop sees the campaign with its own inventory's numbers only.
    expect((await as(shopUser).campaigns.list(range)).campaigns.map((c) => [c.campaign_id, c.impressions_total])).toEqual([[campaignId, 2]]);
    const page = await as(brandUser).campaigns.get({ id: campaignId, ...range });
    expect(page.daily.map((d) => d.impressions_total)).toEqual([0, 3, 0]);
    expect(page.ads).toHaveLength(1);

    const stranger = await makeAdvertiser();
    await createUser({ email: "stranger@stats.test", name: "Stranger", password: "correct horse battery", role: "member", accountId: stranger.id });
    const strangerViewer = (await signIn("stranger@stats.test", "correct horse battery")).viewer;
    expect((await as(strangerViewer).campaigns.list(range)).campaigns).toEqual([]);
    await expect(as(strangerViewer).campaigns.get({ id: campaignId, ...range })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(strangerViewer).campaigns.list({ ...range, accountId: brandId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(null).campaigns.get({ id: campaignId, ...range })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect((await as(staff).campaigns.get({ id: campaignId, ...range })).impressions_total).toBe(3);
  });
});

describe("campaign management", () => {
  it("creates, edits, pauses and resumes the viewer's advertiser's campaigns, and nobody else's", async () => {
    const { publishers, products } = await as(brandUser).campaigns.formOptions({ advertiserId: brandId });
    expect(publishers.map((p) => p.id)).toEqual(expect.arrayContaining([shopId, otherShopId]));
    expect(products).toEqual([]);
    const settings = {
      name: "Winter push",
      type: "display" as const,
      status: "draft" as const,
      startDate: "2026-12-01",
      bidModel: "cpm" as const,
      bid: 4.5,
      publisherIds: [shopId],
    };
    const { id } = await as(brandUser).campaigns.create({ advertiserId: brandId, ...settings });
    expect(await as(brandUser).campaigns.settings({ id })).toMatchObject({ name: "Winter push", bid: 4.5, publisherIds: [shopId], startDate: "2026-12-01" });

    await as(staff).campaigns.update({
      id,
      settings: { ...settings, name: "Winter push 2", dailyBudget: 20, publisherIds: [shopId, otherShopId], endDate: "2027-01-31" },
    });
    expect(await as(brandUser).campaigns.settings({ id })).toMatchObject({
      name: "Winter push 2",
      dailyBudget: 20,
      endDate: "2027-01-31",
      publisherIds: expect.arrayContaining([shopId, otherShopId]),
    });
    await as(brandUser).campaigns.setStatus({ id, status: "paused" });
    expect((await as(brandUser).campaigns.settings({ id })).status).toBe("paused");

    // A shop's user, a forged advertiser id, bad references and bad settings get nothing done.
    await expect(as(shopUser).campaigns.setStatus({ id, status: "active" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(shopUser).campaigns.settings({ id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(shopUser).campaigns.update({ id, settings })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(shopUser).campaigns.formOptions({ advertiserId: brandId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(null).campaigns.formOptions({ advertiserId: brandId })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(as(shopUser).campaigns.create({ advertiserId: brandId, ...settings })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(staff).campaigns.create({ advertiserId: shopId, ...settings })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(brandUser).campaigns.create({ advertiserId: brandId, ...settings, publisherIds: [brandId] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(as(brandUser).campaigns.create({ advertiserId: brandId, ...settings, endDate: "2026-11-01" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(brandUser).campaigns.update({ id, settings: { ...settings, productRefs: ["prd_not_theirs"] } })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    expect((await as(brandUser).campaigns.settings({ id })).status).toBe("paused");
  });
});

describe("ads procedures", () => {
  it("create, edit, pause and activate ads of the viewer's campaigns only", async () => {
    const campaignId = (await as(brandUser).campaigns.list(range)).campaigns[0]!.campaign_id;
    await expect(as(brandUser).ads.create({ campaignId, name: "Banner", type: "banner" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const { id } = await as(brandUser).ads.create({
      campaignId,
      name: "Banner",
      type: "banner",
      size: "728x90",
      mediaUrl: "/demo/media/banner-728x90.svg",
      destinationUrl: "https://brand.example/sale",
    });
    expect(await as(staff).ads.settings({ id })).toMatchObject({ campaignId, name: "Banner", size: "728x90", status: "active", advertiserId: brandId });
    await as(staff).ads.update({
      id,
      settings: { name: "Banner B", type: "banner", size: "300x250", mediaUrl: "/demo/media/banner-300x250.svg", status: "active" },
    });
    await as(brandUser).ads.setStatus({ id, status: "paused" });
    expect(await as(brandUser).ads.settings({ id })).toMatchObject({ name: "Banner B", size: "300x250", status: "paused", destinationUrl: undefined });

    await expect(as(shopUser).ads.settings({ id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(shopUser).ads.setStatus({ id, status: "active" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(shopUser).ads.update({ id, settings: { name: "Mine now", type: "product" } })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(null).ads.settings({ id })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    await expect(as(shopUser).ads.create({ campaignId, name: "x", type: "product" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(brandUser).ads.create({ campaignId, name: "x", type: "product", productRefs: ["prd_someone_elses"] })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(as(brandUser).ads.create({ campaignId, name: "x", type: "banner", size: "300x250", mediaUrl: "javascript:alert(1)" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    expect((await as(brandUser).ads.settings({ id })).status).toBe("paused");
  });
});

describe("products procedures", () => {
  it("list and add an advertiser's products for the viewer's advertiser only", async () => {
    const { id } = await as(brandUser).products.create({ advertiserId: brandId, sku: "TEA-1", name: "Tea", price: 4.5 });
    expect(await as(staff).products.list({ advertiserId: brandId })).toEqual([expect.objectContaining({ id, sku: "TEA-1", name: "Tea", price: 4.5 })]);
    await expect(as(brandUser).products.create({ advertiserId: brandId, sku: "TEA-1", name: "Tea again" })).rejects.toThrow(
      "the advertiser already has a product with SKU TEA-1",
    );
    await expect(as(shopUser).products.list({ advertiserId: brandId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(shopUser).products.create({ advertiserId: brandId, sku: "X", name: "X" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(staff).products.create({ advertiserId: shopId, sku: "X", name: "X" })).rejects.toThrow("products belong to advertiser accounts");
  });
});

describe("stats.pipeline", () => {
  it("shows staff the platform's settle and attribution lags and every export destination; refuses members and the signed out", async () => {
    const destination = (accountId: string, name: string) =>
      createDestination(
        {
          accountId,
          name,
          bucket: "lake",
          region: "us-east-1",
          endpoint: "http://127.0.0.1:9",
          forcePathStyle: true,
          credentials: { kind: "access_key", accessKeyId: "AKIAEXAMPLE", secretAccessKey: "secret-key-of-the-test" },
          types: ["ad_events"],
        },
        { actor: OPERATOR },
      );
    const mine = await destination(shopId, `shop lake ${randomUUID()}`);
    const theirs = await destination(otherShopId, `other lake ${randomUUID()}`);

    const forStaff = await as(staff).stats.pipeline();
    expect(forStaff).toMatchObject({ settleBacklog: 0, settleLagSeconds: 0, attributionBacklog: expect.any(Number), problems: [] });
    expect(forStaff.exports.map((e) => e.destinationId)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    expect(forStaff.exports.find((e) => e.destinationId === mine.id)).toMatchObject({
      name: mine.name,
      type: "ad_events",
      deliveredTo: null,
      lagSeconds: null,
    });
    // The lags and backlogs are the whole platform's: a member of any account is refused, as any
    // staff-only procedure refuses, and so is the domain function called for a member directly.
    for (const member of [shopUser, brandUser]) await expect(as(member).stats.pipeline()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(pipelineStatus({ actor: shopUser })).rejects.toMatchObject({ code: "forbidden" });
    await expect(as(null).stats.pipeline()).rejects.toMatchObject({ code: "UNAUTHORIZED" });

    // A destination made 200 days ago and never delivered holds raw rows past retention: staff are told.
    await db.exportDestination.update({ where: { id: theirs.id }, data: { createdAt: new Date(Date.now() - 200 * 86_400_000) } });
    const held = `export ${theirs.name} (ad_events) holds raw rows past retention, from `;
    expect((await as(staff).stats.pipeline()).problems).toContainEqual(expect.stringContaining(held));
  });
});
