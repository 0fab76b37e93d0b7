// The fraud rules: every beacon is stored with a status, only counted ones are billed and
// reported as traffic, and each other reason is counted in the report tables.
// The requests here stand for requests through one proxy, which appends the client's address to
// X-Forwarded-For (the env module reads this on first use).
process.env.TALLY_TRUSTED_PROXY_HOPS = "1";

import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { MAX_COUNTED_PER_TOKEN } from "@/server/pipeline/settle/traffic-rules";
import { store } from "@/server/store";
import { invalidTrafficByDay } from "@/server/store/postgres/invalid-traffic.sql";
import { campaignListing } from "@/testing/campaign-listing";
import { postBeacon, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher, today } from "@/testing/fixtures";

async function setup(bidModel: "cpm" | "cpc", bid: number) {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 1000 });
  const { ad, campaign } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel, bid });
  return { publisher, advertiser, ad, campaign };
}

const statusesOf = async (adId: string) => (await db.adEvent.findMany({ where: { adId }, orderBy: { createdAt: "asc" } })).map((e) => e.status);
const spendOf = async (adId: string) => (await db.adEvent.aggregate({ where: { adId }, _sum: { spendMicros: true } }))._sum.spendMicros ?? 0n;
const walletOf = async (id: string) => (await db.account.findUniqueOrThrow({ where: { id } })).walletBalanceMicros;
// Moves an ad's events back in time, in ad_events and in the log (the click-velocity rule reads
// the log), and rebuilds the report rows of the days they may have left (just after midnight UTC
// an hour back is yesterday), as rollups:verify would after such a repair.
const age = async (adId: string, seconds: number) => {
  await db.$executeRaw`UPDATE ad_events SET created_at = created_at - make_interval(secs => ${seconds}) WHERE ad_id = ${adId}`;
  await db.$executeRaw`UPDATE beacon_log SET event_at = event_at - make_interval(secs => ${seconds}) WHERE ad_id = ${adId}`;
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  await store().rollups.rebuild(yesterday, today());
};
const totalsOf = (campaignId: string) =>
  db.dailyCampaignTotal.findMany({ where: { campaignId } }).then((rows) => ({
    impressions: rows.reduce((n, r) => n + r.impressions, 0n),
    clicks: rows.reduce((n, r) => n + r.clicks, 0n),
    sessionMismatch: rows.reduce((n, r) => n + r.sessionMismatchEvents, 0n),
    tokenReuse: rows.reduce((n, r) => n + r.tokenReuseEvents, 0n),
    noUserAgent: rows.reduce((n, r) => n + r.noUserAgentEvents, 0n),
    clickVelocity: rows.reduce((n, r) => n + r.clickVelocityEvents, 0n),
  }));

describe("invalid traffic", () => {
  it("stores a beacon from another session than its ad was served to as session_mismatch, never billed, and the right session still counts", async () => {
    const { publisher, advertiser, ad, campaign } = await setup("cpm", 10);
    const wallet = await walletOf(advertiser.id);
    const served = await serveOneAd(publisher.id, "shopper-a");
    for (const session of ["shopper-b", "shopper-c", "shopper-d"]) {
      expect((await postBeacon(served.impression_url, { session_id: session })).status).toBe(202);
    }
    expect(await statusesOf(ad.id)).toEqual(["session_mismatch", "session_mismatch", "session_mismatch"]);
    expect(await spendOf(ad.id)).toBe(0n);
    expect(await walletOf(advertiser.id)).toBe(wallet);

    expect((await postBeacon(served.impression_url, { session_id: "shopper-a" })).status).toBe(202);
    expect((await statusesOf(ad.id)).at(-1)).toBe("counted");
    expect(await walletOf(advertiser.id)).toBe(wallet - 10_000n);
    expect(await totalsOf(campaign.id)).toMatchObject({ impressions: 1n, sessionMismatch: 3n });

    // Reports count it among the filtered beacons, not as traffic.
    const listing = await campaignListing(
      { advertiserId: advertiser.id, publisherIds: null, targetedPublisherIds: null },
      { startDate: today(), endDate: today(), zone: "UTC", page: 1, perPage: 10, orderBy: "impressions_total", order: "desc", download: false, ids: {} },
    );
    expect(listing.data.find((row) => row.campaign_id === campaign.id)).toMatchObject({
      impressions_total: 1,
      invalid_events: 3,
      duplicate_events: 0,
      bot_events: 0,
    });
    const [day] = await invalidTrafficByDay(
      { advertiserId: advertiser.id, publisherIds: null, targetedPublisherIds: null },
      { startDate: today(), endDate: today(), zone: "UTC" },
    );
    expect(day).toMatchObject({ counted_events: 1, session_mismatch_events: 3, duplicate_events: 0 });
  });

  it("stores a beacon without a user agent, or with an empty one, as no_user_agent", async () => {
    const { publisher, ad, campaign } = await setup("cpm", 10);
    const served = await serveOneAd(publisher.id, "agentless");
    const withoutAgent = await postBeacon(served.impression_url, { session_id: "agentless" }, { headers: { "User-Agent": "" } });
    expect(withoutAgent.status).toBe(202);
    await postBeacon(served.impression_url, { session_id: "agentless" }, { headers: { "User-Agent": "   " } });
    expect(await statusesOf(ad.id)).toEqual(["no_user_agent", "no_user_agent"]);
    expect(await spendOf(ad.id)).toBe(0n);
    // They did not use up the impression: the browser's own beacon still counts.
    await postBeacon(served.impression_url, { session_id: "agentless" });
    expect(await statusesOf(ad.id)).toEqual(["no_user_agent", "no_user_agent", "counted"]);
    expect(await totalsOf(campaign.id)).toMatchObject({ impressions: 1n, noUserAgent: 2n });
  });

  it(`counts a click address at most ${MAX_COUNTED_PER_TOKEN} times in its life; later clicks with it are token_reuse, never billed`, async () => {
    const { publisher, advertiser, ad, campaign } = await setup("cpc", 0.5);
    const wallet = await walletOf(advertiser.id);
    const served = await serveOneAd(publisher.id, "clicker");
    for (let hour = 0; hour < MAX_COUNTED_PER_TOKEN + 2; hour += 1) {
      expect((await postBeacon(served.click_url, { session_id: "clicker" })).status).toBe(202);
      await age(ad.id, 3601); // past the hour's de-duplication window
    }
    expect(await statusesOf(ad.id)).toEqual([...Array(MAX_COUNTED_PER_TOKEN).fill("counted"), "token_reuse", "token_reuse"]);
    expect(await walletOf(advertiser.id)).toBe(wallet - BigInt(MAX_COUNTED_PER_TOKEN) * 500_000n);
    // A fresh page view's click address counts again.
    const again = await serveOneAd(publisher.id, "clicker");
    await postBeacon(again.click_url, { session_id: "clicker" });
    expect((await statusesOf(ad.id)).at(-1)).toBe("counted");
    expect(await totalsOf(campaign.id)).toMatchObject({ clicks: BigInt(MAX_COUNTED_PER_TOKEN + 1), tokenReuse: 2n });
  });

  it("stores clicks from one address past 30 a minute as click_velocity; other addresses, and the same one a minute later, still count", async () => {
    const { publisher, advertiser, ad, campaign } = await setup("cpc", 0.1);
    const wallet = await walletOf(advertiser.id);
    const sessions = Array.from({ length: 32 }, (_, i) => `velocity-${i}`);
    const served = await Promise.all(sessions.map((session) => serveOneAd(publisher.id, session)));
    const from = (address: string) => ({ headers: { "X-Forwarded-For": address } });
    for (const [i, session] of sessions.entries()) {
      expect((await postBeacon(served[i]!.click_url, { session_id: session }, from("198.51.100.7"))).status).toBe(202);
    }
    expect(await statusesOf(ad.id)).toEqual([...Array(30).fill("counted"), "click_velocity", "click_velocity"]);
    expect(await walletOf(advertiser.id)).toBe(wallet - 30n * 100_000n);

    const elsewhere = await serveOneAd(publisher.id, "velocity-elsewhere");
    await postBeacon(elsewhere.click_url, { session_id: "velocity-elsewhere" }, from("203.0.113.9"));
    expect((await statusesOf(ad.id)).at(-1)).toBe("counted");

    await age(ad.id, 61);
    const later = await serveOneAd(publisher.id, "velocity-later");
    await postBeacon(later.click_url, { session_id: "velocity-later" }, from("198.51.100.7"));
    expect((await statusesOf(ad.id)).at(-1)).toBe("counted");
    expect(await totalsOf(campaign.id)).toMatchObject({ clicks: 32n, clickVelocity: 2n });

    // The address itself is never stored, only a keyed hash of it, the same for the same address.
    const hashes = await db.adEvent.findMany({ where: { adId: ad.id }, select: { clientHash: true } });
    expect(new Set(hashes.map((h) => h.clientHash)).size).toBe(2);
    expect(hashes.every((h) => h.clientHash !== null && !h.clientHash.includes("198.51") && /^[A-Za-z0-9_-]{16}$/.test(h.clientHash))).toBe(true);
    // An IPv6 address counts by its /64: another address of the same /64 is the same client.
    const v6 = await Promise.all(["v6-a", "v6-b"].map((session) => serveOneAd(publisher.id, session)));
    await postBeacon(v6[0]!.click_url, { session_id: "v6-a" }, from("2001:db8:1:2::1"));
    await postBeacon(v6[1]!.click_url, { session_id: "v6-b" }, from("2001:db8:1:2:ffff::9"));
    const [a, b] = (await db.adEvent.findMany({ where: { adId: ad.id, sessionId: { in: ["v6-a", "v6-b"] } }, select: { clientHash: true } })).map(
      (e) => e.clientHash,
    );
    expect(a).toBe(b);
  });

  it("keeps the report tables equal to a recount of the stored events, every reason included", async () => {
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect(await store().rollups.verify(yesterday, today())).toEqual([]);
  });
});
