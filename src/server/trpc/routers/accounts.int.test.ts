import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn, type Viewer } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { createCaller } from "../root";

let staff: Viewer;
const as = (v: Viewer | null) => createCaller({ viewer: v });
const member = async (email: string, accountId: string) => {
  await createUser({ email, name: email, password: "correct horse battery", role: "member", accountId });
  return (await signIn(email, "correct horse battery")).viewer;
};

beforeAll(async () => {
  await createUser({ email: "staff@accounts.test", name: "Staff", password: "correct horse battery", role: "staff" });
  staff = (await signIn("staff@accounts.test", "correct horse battery")).viewer;
});

describe("accounts procedures", () => {
  it("let account managers create accounts and top up wallets, and an account's users manage its budget and sites", async () => {
    const { id: networkId } = await as(staff).accounts.create({ kind: "network", name: "Mall Network", sites: [{ name: "mall.example" }] });
    const { id: shopId } = await as(staff).accounts.create({
      kind: "publisher",
      name: "Mall Shoes",
      networkId,
      sites: [{ name: "shoes.example", domain: "shoes.example" }],
    });
    const { id: brandId } = await as(staff).accounts.create({ kind: "advertiser", name: "Sneaker Co", sellerId: "s-9", walletBalance: 100, dailyBudget: 20 });

    expect(await as(staff).accounts.get({ id: networkId })).toMatchObject({
      kind: "network",
      sites: [{ name: "mall.example" }],
      subPublishers: [{ id: shopId, name: "Mall Shoes" }],
    });
    expect(await as(staff).accounts.topUp({ accountId: brandId, amount: 50.25 })).toEqual({ walletBalance: 150.25 });
    const brand = await member("brand@accounts.test", brandId);
    await as(brand).accounts.setDailyBudget({ accountId: brandId, dailyBudget: 35 });
    await as(brand).accounts.setDailyBudget({ accountId: brandId, dailyBudget: null });
    expect(await as(brand).accounts.get({ id: brandId })).toMatchObject({ walletBalance: 150.25, dailyBudget: null, sellerId: "s-9" });
    const shop = await member("shoes@accounts.test", shopId);
    await as(shop).accounts.addSite({ accountId: shopId, name: "Shoes App" });
    expect((await as(shop).accounts.get({ id: shopId })).sites.map((s) => s.name)).toEqual(["Shoes App", "shoes.example"]);
    expect((await as(shop).accounts.get({ id: shopId })).network).toEqual({ id: networkId, name: "Mall Network" });

    // Members: no new accounts, no top-ups, nothing of other accounts.
    await expect(as(brand).accounts.create({ kind: "advertiser", name: "Mine" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as(brand).accounts.topUp({ accountId: brandId, amount: 1_000 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as(brand).accounts.get({ id: shopId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(shop).accounts.setDailyBudget({ accountId: brandId, dailyBudget: 1 })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(brand).accounts.addSite({ accountId: shopId, name: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(null).accounts.get({ id: brandId })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    // Rules of the domain, in words.
    await expect(as(staff).accounts.topUp({ accountId: shopId, amount: 5 })).rejects.toThrow("only advertisers have a wallet");
    await expect(as(shop).accounts.addSite({ accountId: shopId, name: "Shoes App" })).rejects.toThrow("the account already has a site named Shoes App");
    await expect(as(staff).accounts.create({ kind: "publisher", name: "x", networkId: brandId })).rejects.toThrow("networkId must be a network account");
    await expect(as(staff).accounts.topUp({ accountId: brandId, amount: -5 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect((await db.account.findUniqueOrThrow({ where: { id: brandId } })).walletBalanceMicros).toBe(150_250_000n);
  });
});

describe("where a screen about one account opens", () => {
  it("lands staff on the advertiser that spent most recently, the most spent that day, and a member on their own account", async () => {
    const first = (await as(staff).accounts.list())[0]!.id;
    expect(await as(staff).accounts.landing()).toEqual({ accountId: first });

    const [earlier, later, bigger, nothing] = await Promise.all([makeAdvertiser(), makeAdvertiser(), makeAdvertiser(), makeAdvertiser()]);
    const spent = (advertiserId: string, day: string, spendMicros: bigint) =>
      db.advertiserDailySpend.create({ data: { advertiserId, day: new Date(`${day}T00:00:00Z`), spendMicros } });
    await spent(earlier.id, "2026-11-01", 900_000_000n);
    await spent(later.id, "2026-11-03", 1_000_000n);
    await spent(bigger.id, "2026-11-02", 5_000_000_000n);
    // A day with rows but nothing spent is no activity.
    await spent(nothing.id, "2026-11-04", 0n);
    expect(await as(staff).accounts.landing()).toEqual({ accountId: later.id });
    await spent(bigger.id, "2026-11-03", 2_000_000n);
    expect(await as(staff).accounts.landing()).toEqual({ accountId: bigger.id });

    const shop = await makePublisher();
    expect(await as(await member("landing@accounts.test", shop.id)).accounts.landing()).toEqual({ accountId: shop.id });
    await expect(as(null).accounts.landing()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("attribution procedures", () => {
  it("let everyone signed in read the windows and only staff change them, or read who changed them", async () => {
    const someone = await member("reader@accounts.test", (await as(staff).accounts.create({ kind: "advertiser", name: "Reader Co" })).id);
    const fortnight = { clickDays: 14, viewDays: 14, viewThrough: "views_and_impressions" };
    expect(await as(someone).attribution.windows()).toEqual({ product: fortnight, display: fortnight, video: fortnight });
    const week = { campaignType: "display" as const, clickDays: 7, viewDays: 1, viewThrough: "views_only" as const };
    expect((await as(staff).attribution.setWindows(week)).display).toEqual({ clickDays: 7, viewDays: 1, viewThrough: "views_only" });
    await expect(as(someone).attribution.setWindows({ ...week, clickDays: 30 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(as(staff).attribution.setWindows({ ...week, clickDays: 91 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(as(null).attribution.windows()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    expect((await as(someone).attribution.windows()).display.clickDays).toBe(7);
    expect((await as(staff).attribution.changes())[0]).toMatchObject({
      action: "attribution.windows.set",
      subject: "display campaigns",
      after: { clickDays: 7 },
    });
    await expect(as(someone).attribution.changes()).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("show a campaign's windows to its own advertiser and to staff, and to no other account, as if it did not exist", async () => {
    const brand = await as(staff).accounts.create({ kind: "advertiser", name: "Windowed Brand" });
    const outsider = await member("outsider@accounts.test", (await as(staff).accounts.create({ kind: "advertiser", name: "Outsider Co" })).id);
    const insider = await member("insider@accounts.test", brand.id);
    const { campaign } = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [(await makePublisher()).id], type: "video" });
    await as(staff).attribution.setCampaignWindows({ campaignId: campaign.id, clickDays: 2, viewDays: null });
    const expected = { click: { days: 2, from: "campaign" }, view: { days: 14, from: "type" }, viewThrough: "views_and_impressions" };
    expect(await as(insider).attribution.campaignWindows({ campaignId: campaign.id })).toEqual(expected);
    expect(await as(staff).attribution.campaignWindows({ campaignId: campaign.id })).toEqual(expected);
    await expect(as(outsider).attribution.campaignWindows({ campaignId: campaign.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(outsider).attribution.campaignWindows({ campaignId: "cmp_missing" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(insider).attribution.setCampaignWindows({ campaignId: campaign.id, clickDays: 90, viewDays: 90 })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });
});
