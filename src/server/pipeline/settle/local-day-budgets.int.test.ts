// Daily budgets run over the advertiser's local day (accounts.time_zone), with the clock under the
// test's control: spent out in the evening, still capped a minute before local midnight, charged
// and served again from local midnight, in São Paulo (UTC−3) and Kathmandu (UTC+5:45). The
// expected days and moments are worked out from the zones' offsets, not from the code.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { env } from "@/env";
import { addDays, DAY_MS, utcDay } from "@/server/core/days";
import { db } from "@/server/db/client";
import { parseAdQuery } from "@/server/pipeline/accept/ads/ad-query.schema";
import { queryAds } from "@/server/pipeline/accept/ads/query-ads";
import { CHROME, type ServedTarget, servedClaims } from "@/testing/beacon-log";
import { daysFromToday, makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle } from "@/testing/settle";

// A day some days back, so every moment of the tests is in the past whatever the hour they run.
const DAY = utcDay(Date.now() - 5 * DAY_MS);
const NEXT = addDays(DAY, 1);
const at = (day: string, time: string) => new Date(`${day}T${time}Z`);

async function setup(zone: string, budgets: { advertiser?: number; campaign?: number }) {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 100, dailyBudget: budgets.advertiser });
  await db.account.update({ where: { id: advertiser.id }, data: { timeZone: zone } });
  const made = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    bidModel: "cpc",
    bid: 0.5,
    dailyBudget: budgets.campaign,
    startDate: daysFromToday(-10),
  });
  const target: ServedTarget = { ...made, publisher };
  /** The price settling charged a click on the ad at `moment`, in micro-units. */
  const click = async (moment: Date) => {
    const session = `click-${randomUUID()}`;
    const outcome = await recordAndSettle({
      claims: servedClaims(target, session, { kind: "click", at: moment }),
      body: { session_id: session },
      userAgent: CHROME,
      now: moment,
    });
    expect(outcome.status).toBe("counted");
    return outcome.spendMicros;
  };
  /** Whether the ad query serves the campaign's ad at `moment`. */
  const served = async (moment: Date) => {
    const query = parseAdQuery({
      publisher_id: publisher.id,
      session_id: `s-${randomUUID()}`,
      context: "home",
      placements: [{ name: "x", types: ["banner"] }],
    });
    const answer = await queryAds({ query, eventsUrl: "http://tally.test", signingKey: env().BEACON_SIGNING_KEYS[0]!, now: moment });
    return answer.ads.x!.some((ad) => ad.ad_id === made.ad.id);
  };
  const spendRows = async () => {
    const [campaign, advertiserRows] = await Promise.all([
      db.campaignDailySpend.findMany({ where: { campaignId: made.campaign.id }, orderBy: { day: "asc" } }),
      db.advertiserDailySpend.findMany({ where: { advertiserId: advertiser.id }, orderBy: { day: "asc" } }),
    ]);
    const rows = (list: { day: Date; spendMicros: bigint }[]) => list.map((r) => [r.day.toISOString().slice(0, 10), r.spendMicros]);
    return { campaign: rows(campaign), advertiser: rows(advertiserRows) };
  };
  return { click, served, spendRows };
}

describe("a daily budget in São Paulo (UTC−3): the day runs from 03:00 UTC to 03:00 UTC", () => {
  it.each([
    { budget: "the advertiser's", budgets: { advertiser: 1 } },
    { budget: "the campaign's", budgets: { campaign: 1 } },
  ])(
    "$budget: spent out at 20:00 local, still capped at 23:59 local (02:59 UTC the next day), charged and served again at 00:00 local",
    async ({ budgets }) => {
      const f = await setup("America/Sao_Paulo", budgets);
      // 20:00 local on DAY is 23:00 UTC on DAY: two clicks of 0.50 spend the budget of 1.00.
      expect([await f.click(at(DAY, "23:00:00")), await f.click(at(DAY, "23:00:01"))]).toEqual([500_000n, 500_000n]);
      // 23:59 local is 02:59 UTC on the next UTC day: still DAY in São Paulo, so capped and not served.
      expect(await f.served(at(NEXT, "02:59:00"))).toBe(false);
      expect(await f.click(at(NEXT, "02:59:00"))).toBe(0n);
      // 00:00 local on NEXT is 03:00 UTC: a new local day, its budget untouched.
      expect(await f.served(at(NEXT, "03:00:00"))).toBe(true);
      expect(await f.click(at(NEXT, "03:00:00"))).toBe(500_000n);
      // The rows are the local dates; under UTC days the 02:59 click would have opened NEXT's.
      const rows = await f.spendRows();
      expect(rows.advertiser).toEqual([
        [DAY, 1_000_000n],
        [NEXT, 500_000n],
      ]);
      expect(rows.campaign).toEqual(rows.advertiser);
    },
  );
});

describe("a daily budget in Kathmandu (UTC+5:45): the day begins at 18:15 UTC the day before", () => {
  it("capped at 23:59 local (18:14 UTC), charged and served again at 00:00 local (18:15 UTC)", async () => {
    const f = await setup("Asia/Kathmandu", { advertiser: 1 });
    // 17:00 UTC on DAY is 22:45 local on DAY; 18:15 UTC on DAY is 00:00 local on NEXT.
    expect([await f.click(at(DAY, "17:00:00")), await f.click(at(DAY, "17:00:01"))]).toEqual([500_000n, 500_000n]);
    expect(await f.served(at(DAY, "18:14:59"))).toBe(false);
    expect(await f.click(at(DAY, "18:14:59"))).toBe(0n);
    expect(await f.served(at(DAY, "18:15:00"))).toBe(true);
    expect(await f.click(at(DAY, "18:15:00"))).toBe(500_000n);
    expect((await f.spendRows()).advertiser).toEqual([
      [DAY, 1_000_000n],
      [NEXT, 500_000n],
    ]);
  });
});
