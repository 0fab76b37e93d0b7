import { describe, expect, it } from "vitest";
import { env } from "@/env";
import { db } from "@/server/db/client";
import { CHROME } from "@/testing/beacon-log";
import { postBeacon, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { signBeaconToken, verifyBeaconToken } from "./beacon-token";

async function setup(options: { bidModel?: "cpm" | "cpc"; bid?: number; wallet?: number; dailyBudget?: number; advertiserDailyBudget?: number } = {}) {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: options.wallet ?? 1000, dailyBudget: options.advertiserDailyBudget });
  const { ad, campaign } = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    bidModel: options.bidModel,
    bid: options.bid,
    dailyBudget: options.dailyBudget,
  });
  return { publisher, advertiser, ad, campaign };
}

const eventsOf = (adId: string) => db.adEvent.findMany({ where: { adId }, orderBy: { createdAt: "asc" } });
const wallet = async (advertiserId: string) => (await db.account.findUniqueOrThrow({ where: { id: advertiserId } })).walletBalanceMicros;
/** Moves an ad's stored events back in time, as if they had arrived `seconds` earlier. */
const age = (adId: string, seconds: number) =>
  db.$executeRaw`UPDATE ad_events SET created_at = created_at - make_interval(secs => ${seconds}) WHERE ad_id = ${adId}`;

describe("POST /v1/beacon/{kind}/{id}", () => {
  it("stores an accepted impression with every layout A field, then answers 202", async () => {
    const { publisher, advertiser, ad, campaign } = await setup();
    const served = await serveOneAd(publisher.id, "sess-1");
    const response = await postBeacon(served.impression_url, { session_id: "sess-1", user_id: "user-9" });
    expect(response.status).toBe(202);
    const [event] = await eventsOf(ad.id);
    const claims = verifyBeaconToken(served.impression_url.split("/").pop()!, "impression", env().BEACON_SIGNING_KEYS);
    expect(event).toMatchObject({
      kind: "impression",
      status: "counted",
      sessionId: "sess-1",
      userId: "user-9",
      adId: ad.id,
      campaignId: campaign.id,
      advertiserId: advertiser.id,
      publisherId: publisher.id,
      requestId: claims.requestId,
      adType: "banner",
      adSize: "300x250",
      placementName: "slot",
      context: "home",
      site: publisher.sites[0]!.name,
      userAgent: CHROME,
    });
    // A UUIDv7: version 7, and its first 48 bits are the millisecond it was made.
    expect(event!.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const idMillis = Number.parseInt(event!.eventId.replaceAll("-", "").slice(0, 12), 16);
    expect(Math.abs(idMillis - event!.createdAt.getTime())).toBeLessThan(5_000);
    expect(Date.now() - event!.createdAt.getTime()).toBeLessThan(10_000);
  });

  it("accepts text/plain bodies, as sendBeacon sends a string", async () => {
    const { publisher, ad } = await setup();
    const served = await serveOneAd(publisher.id, "s-text");
    const response = await postBeacon(served.click_url, JSON.stringify({ session_id: "s-text" }), { contentType: "text/plain;charset=UTF-8" });
    expect(response.status).toBe(202);
    expect((await eventsOf(ad.id)).map((e) => e.kind)).toEqual(["click"]);
  });

  it("answers every bad request with a clear 4xx and stores nothing", async () => {
    const { publisher, ad } = await setup();
    const served = await serveOneAd(publisher.id, "s-bad");
    const [kid, payload, signature] = served.impression_url.split("/").pop()!.split(".") as [string, string, string];
    const base = served.impression_url.slice(0, served.impression_url.lastIndexOf("/") + 1);

    const malformed = await postBeacon(served.impression_url, "{not json");
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: { code: "bad_request", message: "the body is not valid JSON" } });

    const missing = await postBeacon(served.impression_url, { user_id: "u" });
    expect(missing.status).toBe(422);
    expect(await missing.json()).toEqual([
      {
        instancePath: "",
        schemaPath: "#/required",
        keyword: "required",
        params: { missingProperty: "session_id" },
        message: "must have required property 'session_id'",
      },
    ]);
    const notString = await postBeacon(served.impression_url, { session_id: 42 });
    expect(notString.status).toBe(422);
    expect(await notString.json()).toEqual([
      { instancePath: "/session_id", schemaPath: "#/properties/session_id/type", keyword: "type", params: { type: "string" }, message: "must be string" },
    ]);

    expect((await postBeacon(served.impression_url, { session_id: "s", pad: "x".repeat(16 * 1024) })).status).toBe(413);
    expect((await postBeacon(served.impression_url, "session_id=s", { contentType: "application/x-www-form-urlencoded" })).status).toBe(415);
    expect((await postBeacon(`${base}${kid}.${payload}.${signature.replace(/^./, (c) => (c === "A" ? "B" : "A"))}`, { session_id: "s" })).status).toBe(404);
    expect((await postBeacon(served.impression_url.replace("/impression/", "/click/"), { session_id: "s" })).status).toBe(404);
    expect((await postBeacon(served.impression_url.replace("/impression/", "/purchase/"), { session_id: "s" })).status).toBe(404);
    expect((await postBeacon(`${base}not-a-token`, { session_id: "s" })).status).toBe(404);
    const wrongMethod = await postBeacon(served.impression_url, "", { method: "GET" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST, OPTIONS");
    expect(await wrongMethod.json()).toEqual({ error: { code: "method_not_allowed", message: "use POST" } });

    const claims = verifyBeaconToken(`${kid}.${payload}.${signature}`, "impression", env().BEACON_SIGNING_KEYS);
    const expired = signBeaconToken({ ...claims, issuedAt: claims.issuedAt - 24 * 3600 - 5 }, env().BEACON_SIGNING_KEYS[0]!);
    const gone = await postBeacon(`${base}${expired}`, { session_id: "s" });
    expect(gone.status).toBe(410);
    expect(await gone.json()).toEqual({ error: { code: "gone", message: "this beacon address has expired" } });

    expect(await eventsOf(ad.id)).toEqual([]);
  });

  it("answers CORS preflights and credentialed requests from any page origin", async () => {
    const { publisher } = await setup();
    const served = await serveOneAd(publisher.id, "s-cors");
    const preflight = await postBeacon(served.view_url, "", {
      method: "OPTIONS",
      headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(Object.fromEntries(preflight.headers)).toMatchObject({
      "access-control-allow-origin": "https://shop.example",
      "access-control-allow-credentials": "true",
      "access-control-allow-methods": "POST, OPTIONS",
      "access-control-allow-headers": "Content-Type, Accept",
      "access-control-max-age": "86400",
    });
    const post = await postBeacon(served.view_url, { session_id: "s-cors" }, { headers: { Origin: "https://shop.example" } });
    expect(post.status).toBe(202);
    expect(post.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(post.headers.get("access-control-allow-credentials")).toBe("true");
    const rejected = await postBeacon(served.view_url, "{", { headers: { Origin: "https://shop.example" } });
    expect(rejected.status).toBe(400);
    expect(rejected.headers.get("access-control-allow-origin")).toBe("https://shop.example");
  });

  it("counts an impression once per token and session, and once per ad and session a minute", async () => {
    const { publisher, ad } = await setup();
    const first = await serveOneAd(publisher.id, "s-dup");
    const second = await serveOneAd(publisher.id, "s-dup"); // another page view: another token
    for (const url of [first.impression_url, first.impression_url, second.impression_url]) {
      expect((await postBeacon(url, { session_id: "s-dup" })).status).toBe(202);
    }
    expect((await eventsOf(ad.id)).map((e) => e.status)).toEqual(["counted", "duplicate", "duplicate"]);

    // Another session is another visitor, with ads served to it.
    const other = await serveOneAd(publisher.id, "s-other");
    await postBeacon(other.impression_url, { session_id: "s-other" });
    expect(await db.adEvent.count({ where: { adId: ad.id, sessionId: "s-other", status: "counted" } })).toBe(1);

    await age(ad.id, 61);
    // A minute later a new token counts again; the already-counted token never does.
    await postBeacon(first.impression_url, { session_id: "s-dup" });
    await postBeacon(second.impression_url, { session_id: "s-dup" });
    const statuses = (await db.adEvent.findMany({ where: { adId: ad.id, sessionId: "s-dup" }, orderBy: { createdAt: "asc" } })).map((e) => e.status);
    expect(statuses).toEqual(["counted", "duplicate", "duplicate", "duplicate", "counted"]);
  });

  it("counts a view once per token and session, and once per ad and session a minute", async () => {
    const { publisher, ad } = await setup();
    const served = await serveOneAd(publisher.id, "s-view");
    await postBeacon(served.view_url, { session_id: "s-view" });
    await postBeacon(served.view_url, { session_id: "s-view" });
    await age(ad.id, 3600);
    await postBeacon(served.view_url, { session_id: "s-view" });
    expect((await eventsOf(ad.id)).map((e) => e.status)).toEqual(["counted", "duplicate", "duplicate"]);
  });

  it("counts a click once per ad and session an hour", async () => {
    const { publisher, ad } = await setup({ bidModel: "cpc", bid: 0.5 });
    const served = await serveOneAd(publisher.id, "s-click");
    await postBeacon(served.click_url, { session_id: "s-click" });
    await postBeacon(served.click_url, { session_id: "s-click" });
    await age(ad.id, 3599);
    await postBeacon(served.click_url, { session_id: "s-click" });
    await age(ad.id, 2);
    await postBeacon(served.click_url, { session_id: "s-click" });
    expect((await eventsOf(ad.id)).map((e) => [e.status, e.spendMicros])).toEqual([
      ["counted", 500_000n],
      ["duplicate", 0n],
      ["duplicate", 0n],
      ["counted", 500_000n],
    ]);
  });

  it("keeps bot traffic, flagged and never counted or billed", async () => {
    const { publisher, advertiser, ad } = await setup({ bidModel: "cpm", bid: 10 });
    const before = await wallet(advertiser.id);
    const served = await serveOneAd(publisher.id, "s-bot");
    for (const agent of [
      "Googlebot/2.1 (+http://www.google.com/bot.html)",
      "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
      "curl/8.5.0",
      "HeadlessChrome/120.0",
    ]) {
      expect((await postBeacon(served.impression_url, { session_id: "s-bot" }, { headers: { "User-Agent": agent } })).status).toBe(202);
    }
    expect((await eventsOf(ad.id)).map((e) => [e.status, e.spendMicros])).toEqual(Array(4).fill(["bot", 0n]));
    expect(await wallet(advertiser.id)).toBe(before);
    // The bot did not use up the human's impression.
    await postBeacon(served.impression_url, { session_id: "s-bot" });
    expect((await eventsOf(ad.id)).at(-1)?.status).toBe("counted");
  });

  it("charges CPM per counted impression and CPC per counted click, against wallet and daily budgets", async () => {
    const cpm = await setup({ bidModel: "cpm", bid: 2.5 });
    const servedCpm = await serveOneAd(cpm.publisher.id, "s-pay");
    await postBeacon(servedCpm.impression_url, { session_id: "s-pay" });
    await postBeacon(servedCpm.view_url, { session_id: "s-pay" });
    await postBeacon(servedCpm.click_url, { session_id: "s-pay" });
    expect((await eventsOf(cpm.ad.id)).map((e) => [e.kind, e.spendMicros])).toEqual([
      ["impression", 2500n],
      ["view", 0n],
      ["click", 0n],
    ]);
    expect(await wallet(cpm.advertiser.id)).toBe(1000_000_000n - 2500n);
    const day = new Date(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
    expect((await db.campaignDailySpend.findUniqueOrThrow({ where: { campaignId_day: { campaignId: cpm.campaign.id, day } } })).spendMicros).toBe(2500n);
    expect((await db.advertiserDailySpend.findUniqueOrThrow({ where: { advertiserId_day: { advertiserId: cpm.advertiser.id, day } } })).spendMicros).toBe(
      2500n,
    );

    const cpc = await setup({ bidModel: "cpc", bid: 0.4 });
    const servedCpc = await serveOneAd(cpc.publisher.id, "s-pay");
    await postBeacon(servedCpc.impression_url, { session_id: "s-pay" });
    await postBeacon(servedCpc.click_url, { session_id: "s-pay" });
    expect((await eventsOf(cpc.ad.id)).map((e) => [e.kind, e.spendMicros])).toEqual([
      ["impression", 0n],
      ["click", 400_000n],
    ]);
    expect(await wallet(cpc.advertiser.id)).toBe(1000_000_000n - 400_000n);
  });

  it("never loses an update or overspends by more than one event under concurrent beacons", async () => {
    // Room for 10.5 clicks of 1.00 in the wallet: the 11th click is charged, the rest are free.
    const { publisher, advertiser, ad, campaign } = await setup({ bidModel: "cpc", bid: 1, wallet: 10.5 });
    const served = await Promise.all(Array.from({ length: 60 }, (_, i) => serveOneAd(publisher.id, `s-${i}`)));
    const responses = await Promise.all(served.map((ad, i) => postBeacon(ad.click_url, { session_id: `s-${i}` })));
    expect(responses.map((r) => r.status)).toEqual(Array(60).fill(202));
    const events = await eventsOf(ad.id);
    expect(events).toHaveLength(60);
    expect(events.every((e) => e.status === "counted")).toBe(true);
    const charged = events.filter((e) => e.spendMicros > 0n);
    expect(charged).toHaveLength(11);
    expect(await wallet(advertiser.id)).toBe(10_500_000n - 11_000_000n);
    const spent = await db.campaignDailySpend.findFirstOrThrow({ where: { campaignId: campaign.id } });
    expect(spent.spendMicros).toBe(11_000_000n);

    // A campaign past its daily budget stops being served.
    const again = await (await import("@/testing/events-client")).askForAds({
      publisher_id: publisher.id,
      session_id: "s",
      context: "home",
      placements: [{ name: "slot", types: ["banner"] }],
    });
    expect(again.body.ads.slot).toEqual([]);
  });

  it("counts once when the same beacon arrives concurrently", async () => {
    const { publisher, ad } = await setup();
    const served = await serveOneAd(publisher.id, "s-race");
    const responses = await Promise.all(Array.from({ length: 20 }, () => postBeacon(served.impression_url, { session_id: "s-race" })));
    expect(responses.every((r) => r.status === 202)).toBe(true);
    const statuses = (await eventsOf(ad.id)).map((e) => e.status);
    expect(statuses.filter((s) => s === "counted")).toHaveLength(1);
    expect(statuses.filter((s) => s === "duplicate")).toHaveLength(19);
  });
});
