// One shard's order: every event read once, in (transaction id, sequence) order, however the
// numbers are written (a sequence crossing from 99,999 to 100,000 sorts wrong as text).
import { describe, expect, it } from "vitest";
import { pgPool } from "@/server/db/pg-pool";
import { appendBeaconBatch } from "@/server/pipeline/accept/beacons/append-beacons.sql";
import { beaconToAppend } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { settleShardStep } from "./settle-shard";

describe("a shard's stretches", () => {
  it("settle every event once and in order when the sequence crosses a power of ten, in stretches smaller than a transaction", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const { campaign, ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
    await pgPool().query("SELECT setval('beacon_log_seq', 99_990)");
    const event = (n: number) => beaconToAppend({ ad, campaign, publisher }, `order-${n}`, { shard: 11 });
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
