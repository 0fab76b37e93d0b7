import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { LOCAL_S3_CREDENTIALS, startLocalS3 } from "@/cli/local/local-s3";
import { OPERATOR } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import { createDestination } from "@/server/pipeline/export/destinations/destinations";
import { postBeacon, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettleConversion } from "@/testing/settle";
import { handleAttributionCron, handleExportCron, handleSettleCron, handleShipCron } from "./cron";

// Read by env() on first use, which no import above makes.
process.env.CRON_SECRET = "cron-secret-for-this-test-file";

const call = (authorization?: string) =>
  handleAttributionCron(new Request("http://tally.test/api/cron/attribution", { headers: authorization ? { Authorization: authorization } : {} }));

describe("GET /api/cron/attribution", () => {
  it("refuses calls without the cron secret and runs nothing", async () => {
    const publisher = await makePublisher();
    await recordAndSettleConversion(
      {
        publisher_id: publisher.id,
        user_id: "u",
        session_id: "s",
        order_id: "o-1",
        created_at: new Date().toISOString(),
        channel: "app",
        email_hashed: createHash("sha256").update("a@b.c").digest("hex"),
        items: [{ sku: "x", quantity: 1, price: 1, promotional_price: 1 }],
      },
      new Date(Date.now() - 60_000),
    );
    for (const authorization of [undefined, "Bearer wrong", "cron-secret-for-this-test-file"]) {
      const response = await call(authorization);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: { code: "unauthorized", message: "a cron route needs Authorization: Bearer <CRON_SECRET>" } });
    }
    expect(await db.conversion.count({ where: { attributedAt: null } })).toBe(1);

    const response = await call("Bearer cron-secret-for-this-test-file");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ orders: 1, items: 0, attributed_orders: 0, duration_ms: expect.any(Number) });
    expect(await db.conversion.count({ where: { attributedAt: null } })).toBe(0);
  });
});

describe("GET /api/cron/settle", () => {
  it("refuses calls without the cron secret; with it, settles what was accepted and creates the log's partitions ahead", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const { ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
    const served = await serveOneAd(publisher.id, "cron-shopper");
    expect((await postBeacon(served.impression_url, { session_id: "cron-shopper" }, { settle: false })).status).toBe(202);
    const settleCall = (authorization?: string) =>
      handleSettleCron(new Request("http://tally.test/api/cron/settle", { headers: authorization ? { Authorization: authorization } : {} }));
    for (const authorization of [undefined, "Bearer wrong"]) expect((await settleCall(authorization)).status).toBe(401);
    expect(await db.adEvent.count({ where: { adId: ad.id } })).toBe(0);

    // The accept's transaction id must be older than every running one before it can settle; a
    // call or two at most.
    let body: { events: number; partitions_created: string[] } = { events: 0, partitions_created: [] };
    const created: string[] = [];
    for (let call = 0; call < 50 && (await db.adEvent.count({ where: { adId: ad.id } })) === 0; call++) {
      const response = await settleCall("Bearer cron-secret-for-this-test-file");
      expect(response.status).toBe(200);
      body = (await response.json()) as typeof body;
      created.push(...body.partitions_created);
    }
    expect(await db.adEvent.count({ where: { adId: ad.id, status: "counted" } })).toBe(1);
    // Tomorrow on, for both logs: today's beacons and orders already sit in the default
    // partitions, so that day stays there.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10).replaceAll("-", "");
    expect(created).toEqual(expect.arrayContaining([`beacon_log_${day(1)}`, `beacon_log_${day(7)}`, `conversion_log_${day(1)}`, `conversion_log_${day(7)}`]));
    expect(created).not.toContain(`beacon_log_${day(0)}`);
  });
});

describe("GET /api/cron/ship", () => {
  it("refuses calls without the cron secret; with Postgres as the store, has nothing to ship and says so", async () => {
    const shipCall = (authorization?: string) =>
      handleShipCron(new Request("http://tally.test/api/cron/ship", { headers: authorization ? { Authorization: authorization } : {} }));
    expect((await shipCall()).status).toBe(401);
    const response = await shipCall("Bearer cron-secret-for-this-test-file");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ store: "postgres", batches: 0, rows: 0, set_aside: 0, duration_ms: expect.any(Number) });
  });
});

describe("GET /api/cron/export", () => {
  it("refuses a missing or wrong secret, and with it delivers the due batches", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tally-cron-s3-"));
    const s3 = await startLocalS3({ directory: dir, buckets: ["cron-bucket"] });
    try {
      const publisher = await makePublisher();
      const destination = await createDestination(
        {
          accountId: publisher.id,
          name: "Lake",
          bucket: "cron-bucket",
          region: "us-east-1",
          endpoint: s3.endpoint,
          forcePathStyle: true,
          credentials: { kind: "access_key", ...LOCAL_S3_CREDENTIALS },
          types: ["advertisers"],
        },
        { actor: OPERATOR },
      );
      // Made two days ago: yesterday's aggregates are due.
      await db.exportDestination.update({ where: { id: destination.id }, data: { createdAt: new Date(Date.now() - 2 * 86_400_000) } });
      const exportCall = (authorization?: string) =>
        handleExportCron(new Request("http://tally.test/api/cron/export", { headers: authorization ? { Authorization: authorization } : {} }));
      for (const authorization of [undefined, "Bearer wrong", "Bearer cron-secret-for-this-test-fil", "cron-secret-for-this-test-file"]) {
        expect((await exportCall(authorization)).status).toBe(401);
      }
      expect(await db.exportRun.count({ where: { destinationId: destination.id } })).toBe(0);

      const response = await exportCall("Bearer cron-secret-for-this-test-file");
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        runs: { destination_id: string; type: string; status: string; files: number; range: string[]; day: string; time_zone: string }[];
        unfinished: boolean;
      };
      expect(body.unfinished).toBe(false);
      const mine = body.runs.filter((r) => r.destination_id === destination.id);
      expect(mine.length).toBeGreaterThanOrEqual(1);
      expect(mine.every((r) => r.type === "advertisers" && r.status === "succeeded" && r.files === 1)).toBe(true);
      // Each aggregate run names its local day and zone (the account's, UTC here) beside its UTC range.
      expect(mine.every((r) => r.time_zone === "UTC" && r.range[0] === `${r.day}T00:00:00.000Z`)).toBe(true);
      expect(JSON.stringify(body)).not.toContain(LOCAL_S3_CREDENTIALS.secretAccessKey);
    } finally {
      await s3.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
