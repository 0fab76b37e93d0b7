import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Viewer } from "@/server/accounts/sessions";
import { addDays, DAY_MS, daysFromToday, utcDay } from "@/server/core/days";
import { db } from "@/server/db/client";
import { CHROME, type ServedTarget, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle, settledClickDaysAgo } from "@/testing/settle";
import { getCampaign } from "./get-campaign";
import { listCampaigns } from "./list-campaigns";
import { campaignPacing } from "./pacing";
import { setAdStatus } from "./update-ad";

const member = (accountId: string): Viewer => ({
  userId: `usr_${accountId}`,
  email: `${accountId}@pacing.test`,
  name: accountId,
  role: "member",
  accountId,
  memberRole: "admin",
});
const range = { startDate: daysFromToday(-9), endDate: daysFromToday(0) };

type Made = Awaited<ReturnType<typeof makeCampaignWithAd>>;
let shop: Awaited<ReturnType<typeof makePublisher>>;
let brand: Awaited<ReturnType<typeof makeAdvertiser>>;
let rival: Awaited<ReturnType<typeof makeAdvertiser>>;
let capped: Made;
let steady: Made;
let adless: Made;
let pausedAdless: Made;
let rivalCampaign: Made;

/** A counted click on the campaign's ad, `daysAgo` days before now, in a session of its own. */
async function click(made: Made, daysAgo: number) {
  const target: ServedTarget = { ...made, ad: { id: made.ad.id, type: made.ad.type, size: made.ad.size }, publisher: shop };
  const outcome = await settledClickDaysAgo(target, daysAgo);
  expect(outcome.status).toBe("counted");
  return outcome.spendMicros;
}

beforeAll(async () => {
  shop = await makePublisher();
  brand = await makeAdvertiser({ wallet: 100 });
  rival = await makeAdvertiser({ wallet: 50 });
  const cpc = (advertiserId: string, bid: number, extra: { dailyBudget?: number; status?: "active" | "paused" } = {}) =>
    makeCampaignWithAd({ advertiserId, publisherIds: [shop.id], bidModel: "cpc", bid, ...extra });
  capped = await cpc(brand.id, 0.5, { dailyBudget: 1 });
  steady = await cpc(brand.id, 0.25);
  adless = await cpc(brand.id, 0.1);
  pausedAdless = await cpc(brand.id, 0.1, { status: "paused" });
  rivalCampaign = await cpc(rival.id, 0.5, { dailyBudget: 0.5 });
  for (const made of [adless, pausedAdless]) await setAdStatus({ actor: member(brand.id), id: made.ad.id, status: "paused" });

  // Today: the capped campaign's budget of 1.00 goes in two clicks; the third is counted but free.
  expect([await click(capped, 0), await click(capped, 0), await click(capped, 0)]).toEqual([500_000n, 500_000n, 0n]);
  // The last 7 whole days: 0.50 three days ago and 0.25 five days ago; eight days ago is before them.
  for (const daysAgo of [3, 3, 5, 8]) await click(steady, daysAgo);
  // The rival spends today and in the same days, which none of the brand's figures may count.
  for (const daysAgo of [0, 3, 3]) await click(rivalCampaign, daysAgo);
}, 120_000);

describe("campaign pacing", () => {
  it("shows a campaign that spent its daily budget as out of budget today, the whole budget spent", async () => {
    const { campaigns } = await campaignPacing({ actor: member(brand.id), campaignIds: [capped.campaign.id, steady.campaign.id] });
    expect(campaigns.find((c) => c.campaignId === capped.campaign.id)).toMatchObject({
      bidModel: "cpc",
      bid: 0.5,
      dailyBudget: 1,
      spentToday: 1,
      shareSpent: 1,
      outOfBudgetToday: true,
      stoppedBy: "campaign_budget",
      activeWithoutActiveAds: false,
      currency: "USD",
    });
    // No budget, nothing today, a wallet with money: serving.
    expect(campaigns.find((c) => c.campaignId === steady.campaign.id)).toMatchObject({
      dailyBudget: null,
      spentToday: 0,
      shareSpent: null,
      outOfBudgetToday: false,
      stoppedBy: null,
    });
  });

  it("counts the wallet's days left as its balance over the average daily spend of the 7 days before today", async () => {
    const { advertisers } = await campaignPacing({ actor: member(brand.id), campaignIds: [steady.campaign.id] });
    // Spent: 1.00 today, 0.50 three days ago, 0.25 five days ago, 0.25 eight days ago, from 100.
    const balance = 100 - 1 - 0.5 - 0.25 - 0.25;
    const averageOfLastSevenDays = (0.5 + 0.25) / 7;
    expect(advertisers).toHaveLength(1);
    const wallet = advertisers[0]!;
    expect(wallet).toMatchObject({ advertiserId: brand.id, walletBalance: balance, walletEmpty: false, spentToday: 1 });
    expect(wallet.averageDailySpend).toBeCloseTo(averageOfLastSevenDays, 9);
    expect(wallet.daysLeft).toBeCloseTo(balance / averageOfLastSevenDays, 6);
    expect(wallet.lastDays.map((d) => d.day)).toEqual([7, 6, 5, 4, 3, 2, 1].map((n) => daysFromToday(-n)));
    expect(wallet.lastDays.map((d) => d.spend)).toEqual([0, 0, 0.25, 0, 0.5, 0, 0]);
  });

  it("flags an active campaign whose ads are all paused, and not a paused one", async () => {
    const { campaigns } = await campaignPacing({ actor: member(brand.id), campaignIds: [adless.campaign.id, pausedAdless.campaign.id, capped.campaign.id] });
    const flagged = Object.fromEntries(campaigns.map((c) => [c.campaignId, c.activeWithoutActiveAds]));
    expect(flagged).toEqual({ [adless.campaign.id]: true, [pausedAdless.campaign.id]: false, [capped.campaign.id]: false });
  });

  it("gives nothing of another advertiser's campaigns, and the rival's own figures only its own", async () => {
    const asBrand = await campaignPacing({ actor: member(brand.id), campaignIds: [rivalCampaign.campaign.id, capped.campaign.id] });
    expect(asBrand.campaigns.map((c) => c.campaignId)).toEqual([capped.campaign.id]);
    expect(asBrand.advertisers.map((a) => a.advertiserId)).toEqual([brand.id]);

    const asRival = await campaignPacing({ actor: member(rival.id), campaignIds: [rivalCampaign.campaign.id, capped.campaign.id, steady.campaign.id] });
    expect(asRival.campaigns).toEqual([
      expect.objectContaining({ campaignId: rivalCampaign.campaign.id, spentToday: 0.5, shareSpent: 1, outOfBudgetToday: true }),
    ]);
    // Its budget of 0.50 a day held three days ago too: the second click that day was free.
    expect(asRival.advertisers).toEqual([
      expect.objectContaining({
        advertiserId: rival.id,
        walletBalance: 50 - 1,
        spentToday: 0.5,
        averageDailySpend: expect.closeTo(0.5 / 7, 9),
        daysLeft: expect.closeTo(49 / (0.5 / 7), 6),
      }),
    ]);
    // A shop sees the campaigns on its inventory, not their budgets or wallets.
    const asShop = await listCampaigns({ actor: member(shop.id), ...range });
    expect(asShop.campaigns.length).toBeGreaterThanOrEqual(2);
    expect(asShop.campaigns.every((c) => c.pacing === null)).toBe(true);
    expect(asShop.advertisers).toEqual([]);
  });

  it("comes with the campaign list and the campaign page", async () => {
    const list = await listCampaigns({ actor: member(brand.id), ...range });
    expect(list.campaigns.find((c) => c.campaign_id === capped.campaign.id)?.pacing).toMatchObject({ outOfBudgetToday: true, shareSpent: 1 });
    expect(list.campaigns.some((c) => c.advertiser_id === rival.id)).toBe(false);
    expect(list.advertisers.map((a) => a.advertiserId)).toEqual([brand.id]);

    const page = await getCampaign({ actor: member(brand.id), id: adless.campaign.id, ...range });
    expect(page.pacing).toMatchObject({ campaignId: adless.campaign.id, bid: 0.1, activeWithoutActiveAds: true });
    expect(page.wallet).toMatchObject({ advertiserId: brand.id, walletBalance: 98 });
  });

  it("reads today as the advertiser's local date: São Paulo's spend at 20:00 local still caps at 23:59 local, and a new day starts at 03:00 UTC", async () => {
    const saoPaulo = await makeAdvertiser({ wallet: 10 });
    await db.account.update({ where: { id: saoPaulo.id }, data: { timeZone: "America/Sao_Paulo" } });
    const made = await makeCampaignWithAd({ advertiserId: saoPaulo.id, publisherIds: [shop.id], bidModel: "cpc", bid: 0.5, dailyBudget: 1 });
    const target: ServedTarget = { ...made, publisher: shop };
    const day = utcDay(Date.now() - 3 * DAY_MS);
    // 23:00 UTC is 20:00 in São Paulo (UTC−3): two clicks spend the budget of 1.00 on `day`.
    for (const second of ["00", "01"]) {
      const at = new Date(`${day}T23:00:${second}Z`);
      const session = `sp-${randomUUID()}`;
      await recordAndSettle({ claims: servedClaims(target, session, { kind: "click", at }), body: { session_id: session }, userAgent: CHROME, now: at });
    }
    const pacingAt = async (iso: string) => {
      const { campaigns, advertisers } = await campaignPacing({ actor: member(saoPaulo.id), campaignIds: [made.campaign.id], now: new Date(iso) });
      return { campaign: campaigns[0]!, wallet: advertisers[0]! };
    };
    const next = addDays(day, 1);
    const late = await pacingAt(`${next}T02:59:00Z`);
    expect(late.campaign).toMatchObject({ day, timeZone: "America/Sao_Paulo", spentToday: 1, outOfBudgetToday: true, resetsAt: `${next}T03:00:00.000Z` });
    expect(late.wallet).toMatchObject({ day, spentToday: 1, walletBalance: 9 });
    const midnight = await pacingAt(`${next}T03:00:00Z`);
    expect(midnight.campaign).toMatchObject({ day: next, spentToday: 0, outOfBudgetToday: false, dayElapsed: 0 });
    // The day spent is now the last whole local day of the wallet's look-back.
    expect(midnight.wallet.lastDays.at(-1)).toEqual({ day, spend: 1 });
    expect(midnight.wallet.averageDailySpend).toBeCloseTo(1 / 7, 9);
  });
});
