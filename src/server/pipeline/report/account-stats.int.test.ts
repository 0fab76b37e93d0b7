// The overview's figures beside the period just before, and the beacons a range filtered, from
// beacons stored and settled through the real intake.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { sessionHashOf } from "@/server/pipeline/accept/beacons/beacon-token";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { beacon, type Fixture } from "@/testing/report-fixture";
import { recordAndSettle } from "@/testing/settle";
import { accountStats } from "./account-stats";

const BOT = "Googlebot/2.1 (+http://www.google.com/bot.html)";
const noon = (day: string, minute = 0) => new Date(`${day}T12:${String(minute).padStart(2, "0")}:00Z`);

let shop: Awaited<ReturnType<typeof makePublisher>>;
let brand: Awaited<ReturnType<typeof makeAdvertiser>>;
let fixture: Fixture;

async function botImpression(session: string, when: Date) {
  const { campaign, ad } = fixture;
  await recordAndSettle({
    claims: {
      kind: "impression",
      requestId: randomUUID(),
      adId: ad.id,
      campaignId: campaign.id,
      advertiserId: campaign.advertiserId,
      publisherId: shop.id,
      site: shop.sites[0]!.name,
      placementName: "p",
      context: "search",
      adType: ad.type,
      adSize: ad.size,
      searchTerm: null,
      category: null,
      issuedAt: Math.floor(when.getTime() / 1000),
      sessionHash: sessionHashOf(session),
    },
    body: { session_id: session },
    userAgent: BOT,
    now: when,
  });
}

beforeAll(async () => {
  shop = await makePublisher();
  brand = await makeAdvertiser();
  fixture = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [shop.id], startDate: "2026-10-01", endDate: "2026-12-31" });
  // The week before: 2 impressions and 1 click. The week: 3 impressions and 3 clicks. Before both: only a bot.
  await beacon("impression", fixture, shop, "p1", noon("2026-11-03"));
  await beacon("impression", fixture, shop, "p2", noon("2026-11-03", 5));
  await beacon("click", fixture, shop, "p1", noon("2026-11-03", 10));
  for (const session of ["c1", "c2", "c3"]) {
    await beacon("impression", fixture, shop, session, noon("2026-11-10"));
    await beacon("click", fixture, shop, session, noon("2026-11-10", 1));
  }
  await botImpression("bot", noon("2026-10-20"));
});

describe("the overview's figures", () => {
  it("come with the totals and days of as many days just before, aligned from their first day", async () => {
    const stats = await accountStats({ actor: OPERATOR, accountId: brand.id, startDate: "2026-11-08", endDate: "2026-11-14" });
    expect(stats.previous).toMatchObject({ startDate: "2026-11-01", endDate: "2026-11-07" });
    expect(stats.total).toMatchObject({ impressions_total: 3, clicks_total: 3, ctr: 1 });
    expect(stats.previous.total).toMatchObject({ impressions_total: 2, clicks_total: 1, ctr: 0.5 });
    expect(stats.previous.daily.map((d) => d.day)).toEqual(["2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06", "2026-11-07"]);
    expect(stats.previous.daily[2]).toMatchObject({ impressions_total: 2, clicks_total: 1 });
    expect(stats.daily).toHaveLength(7);
    expect(stats.filteredEvents).toBe(0);
  });

  it("count the beacons a range filtered, so a range of bots only reads apart from one with no traffic", async () => {
    const filtered = await accountStats({ actor: OPERATOR, accountId: brand.id, startDate: "2026-10-19", endDate: "2026-10-21" });
    expect(filtered.total.impressions_total).toBe(0);
    expect(filtered.filteredEvents).toBe(1);
    const empty = await accountStats({ actor: OPERATOR, accountId: brand.id, startDate: "2026-10-22", endDate: "2026-10-24" });
    expect(empty.filteredEvents).toBe(0);
  });
});
