// For the export's integration tests: accounts with traffic, made through the same domain
// functions as real traffic (beacons, orders, attribution), at chosen times.
import { createHash, randomUUID } from "node:crypto";
import { expect } from "vitest";
import { db } from "@/server/db/client";
import { sessionHashOf } from "@/server/pipeline/accept/beacons/beacon-token";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import type { EventKind } from "@/server/store/settle-types";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle, recordAndSettleConversion } from "@/testing/settle";
import { CHROME } from "./beacon-log";

const DAY_MS = 86_400_000;

/**
 * A publisher and an advertiser's product campaign with traffic around `t0`: yesterday and today, 5
 * counted impressions, 2 clicks and a duplicate (not exported), and an order of two lines, one
 * credited to the ad (2 × 25.50).
 */
export async function shopWithTraffic(t0: number) {
  // Its checkout sends the order unsigned, and it credits orders without proof.
  const publisher = await makePublisher({ creditUnverified: true });
  const advertiser = await makeAdvertiser();
  const sku = `SKU-${randomUUID()}`;
  const { campaign, ad } = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    type: "product",
    bidModel: "cpc",
    bid: 0.5,
    products: [{ sku, name: "Grinder" }],
  });
  const site = publisher.sites[0]!.name;
  const beacon = (kind: EventKind, session: string, at: number, user?: string) =>
    recordAndSettle({
      claims: {
        kind,
        requestId: randomUUID(),
        adId: ad.id,
        campaignId: campaign.id,
        advertiserId: advertiser.id,
        publisherId: publisher.id,
        site,
        placementName: "search-top",
        context: "search",
        adType: "product",
        adSize: null,
        searchTerm: null,
        category: null,
        issuedAt: Math.floor(at / 1000),
        sessionHash: sessionHashOf(session),
      },
      body: { session_id: session, ...(user ? { user_id: user } : {}) },
      userAgent: CHROME,
      now: new Date(at),
    });
  // Yesterday and today: 5 impressions, 2 clicks, 1 duplicate (not exported).
  const statuses = [
    await beacon("impression", "s1", t0 - DAY_MS - 3_600_000, "u1"),
    await beacon("impression", "s2", t0 - DAY_MS - 3_000_000),
    await beacon("impression", "s3", t0 - 3 * 3_600_000, "u3"),
    await beacon("impression", "s3", t0 - 3 * 3_600_000 + 1_000, "u3"),
    await beacon("click", "s3", t0 - 3 * 3_600_000 + 60_000, "u3"),
    await beacon("impression", "s4", t0 - 2 * 3_600_000),
    await beacon("impression", "s5", t0 - 90 * 60_000),
    await beacon("click", "s5", t0 - 80 * 60_000),
  ].map((b) => b.status);
  expect(statuses.filter((s) => s === "counted")).toHaveLength(7);
  await recordAndSettleConversion(
    {
      publisher_id: publisher.id,
      user_id: "u3",
      session_id: "s3",
      order_id: `o-${randomUUID()}`,
      created_at: new Date(t0 - 3_600_000).toISOString(),
      channel: "online store",
      email_hashed: createHash("sha256").update("u3@example.com").digest("hex"),
      items: [
        { sku, quantity: 2, price: 30, promotional_price: 25.5 },
        { sku: "NOT-ADVERTISED", quantity: 1, price: 4, promotional_price: 4 },
      ],
    },
    new Date(t0 - 3_500_000),
  );
  await attributePendingConversions({ settleMs: 0 });
  return { publisher, advertiser, campaign, ad };
}

/** Counted impressions of a new publisher received at `times` (epoch ms), in that order; their event ids. */
export async function publisherWithEvents(times: number[]) {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const { campaign, ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
  const ids: string[] = [];
  for (const [i, at] of times.entries()) ids.push(await eventAt(publisher, advertiser.id, campaign.id, ad.id, at, `s${i}`));
  return { publisher, advertiser, campaign, ad, ids, add: (at: number, session: string) => eventAt(publisher, advertiser.id, campaign.id, ad.id, at, session) };
}

export async function eventAt(
  publisher: Awaited<ReturnType<typeof makePublisher>>,
  advertiserId: string,
  campaignId: string,
  adId: string,
  at: number,
  session: string,
): Promise<string> {
  const stored = await recordAndSettle({
    claims: {
      kind: "impression",
      requestId: randomUUID(),
      adId,
      campaignId,
      advertiserId,
      publisherId: publisher.id,
      site: publisher.sites[0]!.name,
      placementName: "home",
      context: "home",
      adType: "banner",
      adSize: "300x250",
      searchTerm: null,
      category: null,
      issuedAt: Math.floor(at / 1000),
      sessionHash: sessionHashOf(session),
    },
    body: { session_id: session },
    userAgent: CHROME,
    now: new Date(at),
  });
  expect(stored.status).toBe("counted");
  const [row] = await db.$queryRaw<
    { event_id: string }[]
  >`SELECT event_id::text FROM ad_events WHERE publisher_id = ${publisher.id} AND session_id = ${session}`;
  // The receipt time exactly, to the millisecond (the tests place rows on batch edges).
  await db.$executeRaw`UPDATE ad_events SET created_at = ${new Date(at)} WHERE event_id = ${row!.event_id}::uuid`;
  return row!.event_id;
}
