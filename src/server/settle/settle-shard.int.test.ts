// One shard's order: every event read once, in (transaction id, sequence) order, however the
// numbers are written (a sequence crossing from 99,999 to 100,000 sorts wrong as text).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pgPool } from "@/server/db/pg-pool";
import { appendBeaconBatch, type BeaconToAppend } from "@/server/ingest/append-beacons.sql";
import { sessionHashOf } from "@/server/ingest/beacon-token";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { settleShardStep } from "./settle-shard";

describe("a shard's stretches", () => {
  it("settle every event once and in order when the sequence crosses a power of ten, in stretches smaller than a transaction", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const { campaign, ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
    await pgPool().query("SELECT setval('beacon_log_seq', 99_990)");
    const event = (n: number): BeaconToAppend => ({
      eventId: randomUUID(),
      shard: 11,
      claims: {
        kind: "impression",
        requestId: randomUUID(),
        adId: ad.id,
        campaignId: campaign.id,
        advertiserId: advertiser.id,
        publisherId: publisher.id,
        site: publisher.sites[0]!.name,
        placementName: "home",
        context: "home",
        adType: ad.type,
        adSize: ad.size,
        issuedAt: Math.floor(Date.now() / 1000),
        sessionHash: sessionHashOf(`order-${n}`),
      },
      sessionId: `order-${n}`,
      userId: null,
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36",
      isBot: false,
      sessionMatches: true,
      clientHash: null,
      pinnedAt: null,
    });
    const first = Array.from({ length: 15 }, (_, n) => event(n));
    const second = Array.from({ length: 15 }, (_, n) => event(15 + n));
    await appendBeaconBatch(first);
    await appendBeaconBatch(second);

    const settled: string[] = [];
    for (let step = 0; step < 100 && settled.length < 30; step++) {
      const done = await settleShardStep(11, 4);
      settled.push(...done.settled.map((e) => e.eventId));
      if (done.settled.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(settled).toEqual([...first, ...second].map((e) => e.eventId));
    expect((await settleShardStep(11, 4)).settled).toEqual([]);
  });
});
