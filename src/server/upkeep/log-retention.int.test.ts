// The beacon log's day partitions: created ahead, and dropped whole once settled and past
// retention, while reports (read from the rollups) stay as they were.
import { describe, expect, it } from "vitest";
import { DAY_MS, utcDay } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { recordBeacon } from "@/server/pipeline/accept/beacons/record-beacon";
import { CHROME, servedClaims } from "@/testing/beacon-log";
import { campaignListing } from "@/testing/campaign-listing";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { settleAll } from "@/testing/settle";
import { createDayPartitions, dayPartitions, PARTITION_DAYS_AHEAD } from "./day-partitions.sql";
import { dropSettledLogPartitions } from "./log-retention.sql";

const createLogPartitions = (from: Date) => createDayPartitions(from, "beacon_log");
const logPartitions = () => dayPartitions(["beacon_log"]);

const dayOf = (offsetDays: number) => utcDay(new Date(Date.now() + offsetDays * DAY_MS));

describe("beacon log partitions", () => {
  it("are created ahead, hold each day's beacons, and a settled day past retention is dropped with reports unchanged", async () => {
    // Partitions from nine days ago, as an upkeep run then would have made them.
    await createLogPartitions(new Date(Date.now() - 9 * DAY_MS));
    const created = await createLogPartitions(new Date());
    expect(created.at(-1)).toBe(dayOf(PARTITION_DAYS_AHEAD));
    const days = (await logPartitions()).filter((p) => p.table === "beacon_log").map((p) => p.day);
    for (let n = -9; n <= PARTITION_DAYS_AHEAD; n++) if (n !== -1) expect(days).toContain(dayOf(n));
    expect(days).toContain(null); // the default partition, for a day upkeep missed
    expect(await createLogPartitions(new Date())).toEqual([]);

    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const { campaign, ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpm", bid: 5 });
    const impression = (sessionId: string, at: Date) =>
      recordBeacon({
        claims: servedClaims({ ad, campaign, publisher }, sessionId, { at }),
        body: { session_id: sessionId },
        userAgent: CHROME,
        now: at,
      });
    // Beacons of eight days ago: received then (moved into that day's partition), not yet settled.
    const eightDaysAgo = new Date(Date.now() - 8 * DAY_MS);
    const old = await Promise.all(Array.from({ length: 20 }, (_, n) => impression(`old-${n}`, eightDaysAgo)));
    await pgPool().query("UPDATE beacon_log SET received_at = $2 WHERE event_id = ANY($1::uuid[])", [old.map((b) => b.eventId), eightDaysAgo]);
    await Promise.all(Array.from({ length: 5 }, (_, n) => impression(`new-${n}`, new Date())));
    const rowsIn = async (day: string) =>
      Number((await pgPool().query<{ n: string }>(`SELECT count(*)::text AS n FROM beacon_log_${day.replaceAll("-", "")}`)).rows[0]!.n);
    expect(await rowsIn(dayOf(-8))).toBe(20);
    expect(await rowsIn(dayOf(0))).toBe(5);

    // Not settled yet: the day is kept, whatever its age; the empty older days go.
    const early = await dropSettledLogPartitions(new Date(), 2);
    const named = (n: number) => `beacon_log_${dayOf(n).replaceAll("-", "")}`;
    expect(early.dropped).not.toContain(named(-8));
    expect(early.dropped).toEqual(expect.arrayContaining([named(-9), named(-7), named(-3)]));

    await settleAll();
    const range = { startDate: dayOf(-8), endDate: dayOf(0), zone: "UTC", page: 1, perPage: 10, orderBy: "impressions_total" as const, order: "desc" as const };
    const scope = { advertiserId: advertiser.id, publisherIds: null, targetedPublisherIds: null };
    const report = await campaignListing(scope, { ...range, download: false, ids: {} });
    expect(report.data.find((row) => row.campaign_id === campaign.id)).toMatchObject({ impressions_total: 25 });

    const started = Date.now();
    const late = await dropSettledLogPartitions(new Date(), 2);
    expect(late.dropped).toEqual([named(-8)]);
    expect(Date.now() - started).toBeLessThan(5_000);
    const left = (await logPartitions()).filter((p) => p.table === "beacon_log").map((p) => p.day);
    expect(left).not.toContain(dayOf(-8));
    expect(left).toContain(dayOf(-2)); // inside retention
    expect(left).toContain(dayOf(0));
    // Reports read the rollups: the same after the raw log of the day is gone.
    expect(await campaignListing(scope, { ...range, download: false, ids: {} })).toEqual(report);
    // Settling goes on as before.
    const after = await impression("after-drop", new Date());
    await settleAll();
    const { rows } = await pgPool().query("SELECT status::text FROM ad_events WHERE event_id = $1", [after.eventId]);
    expect(rows).toEqual([{ status: "counted" }]);
  });
});
