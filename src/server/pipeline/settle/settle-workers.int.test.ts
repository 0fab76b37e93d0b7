// Settle workers as operators run them: separate processes (`npm run worker`) on one database,
// sharing the shards, one of them killed with SIGKILL in the middle of a batch.

import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { appendBeaconBatch, type BeaconToAppend } from "@/server/pipeline/accept/beacons/append-beacons.sql";
import { store } from "@/server/store";
import { beaconToAppend } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher, today } from "@/testing/fixtures";

const workers: ChildProcess[] = [];

afterEach(() => {
  for (const worker of workers.splice(0)) worker.kill("SIGKILL");
});

function startWorker(name: string): ChildProcess {
  const worker = spawn(process.execPath, ["--import", "tsx", "src/cli/worker.ts"], {
    env: {
      ...process.env,
      NODE_ENV: "test",
      // Named, so the test can see its connections in pg_stat_activity.
      PGAPPNAME: name,
      TALLY_SETTLE_INTERVAL_SECONDS: "0.2",
      TALLY_ATTRIBUTION_INTERVAL_SECONDS: "3600",
      TALLY_EXPORT_INTERVAL_SECONDS: "86400",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  worker.stderr?.on("data", (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk}`));
  workers.push(worker);
  return worker;
}

/**
 * Per session: an impression, the same impression again (a duplicate) and a click (billed), all
 * appended to the log as the beacon route would, in batches of 1,000.
 */
async function acceptTraffic(sessions: number) {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 1_000_000 });
  const { campaign, ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpc", bid: 0.01 });
  const events: BeaconToAppend[] = [];
  for (let n = 0; n < sessions; n++) {
    const sessionId = `w-${n}-${randomUUID()}`;
    const requestId = randomUUID();
    const event = (kind: "impression" | "click") => beaconToAppend({ ad, campaign, publisher }, sessionId, { kind, requestId });
    events.push(event("impression"), event("impression"), event("click"));
  }
  for (let i = 0; i < events.length; i += 1000) await appendBeaconBatch(events.slice(i, i + 1000));
  return { advertiser, campaign, ad, events };
}

const settledSoFar = async () => Number((await pgPool().query<{ n: string }>("SELECT sum(settled_events)::text AS n FROM settle_cursors")).rows[0]!.n);

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** What the settled traffic must add up to, however many workers settled it and whatever died on the way. */
async function expectSettledOnce(traffic: Awaited<ReturnType<typeof acceptTraffic>>, sessions: number, settledBefore: number) {
  const { rows } = await pgPool().query<{ status: string; kind: string; n: string; spend: string; ids: string }>(
    `SELECT status::text, kind::text, count(*)::text AS n, sum(spend_micros)::text AS spend, count(DISTINCT event_id)::text AS ids
       FROM ad_events WHERE ad_id = $1 GROUP BY 1, 2 ORDER BY 1, 2`,
    [traffic.ad.id],
  );
  expect(rows.map((r) => [r.status, r.kind, Number(r.n), Number(r.ids)])).toEqual([
    ["counted", "click", sessions, sessions],
    ["counted", "impression", sessions, sessions],
    ["duplicate", "impression", sessions, sessions],
  ]);
  const spent = rows.reduce((sum, r) => sum + BigInt(r.spend), 0n);
  expect(spent).toBe(BigInt(sessions) * 10_000n);
  const wallet = (await db.account.findUniqueOrThrow({ where: { id: traffic.advertiser.id } })).walletBalanceMicros;
  expect(wallet).toBe(1_000_000_000_000n - spent);
  const totals = await db.dailyCampaignTotal.findMany({ where: { campaignId: traffic.campaign.id } });
  expect(totals.reduce((n, r) => n + r.impressions, 0n)).toBe(BigInt(sessions));
  expect(totals.reduce((n, r) => n + r.clicks, 0n)).toBe(BigInt(sessions));
  expect(totals.reduce((n, r) => n + r.duplicateEvents, 0n)).toBe(BigInt(sessions));
  expect(totals.reduce((n, r) => n + r.spendMicros, 0n)).toBe(spent);
  expect(await store().rollups.verify(today(), today())).toEqual([]);
  expect(await settledSoFar()).toBe(settledBefore + traffic.events.length);
}

describe("settle workers", () => {
  it("two worker processes share the shards at once, and nothing is counted twice", async () => {
    const sessions = 3_000;
    const start = await settledSoFar();
    const traffic = await acceptTraffic(sessions);
    startWorker("settle-a");
    startWorker("settle-b");
    await waitFor(async () => (await settledSoFar()) === start + traffic.events.length, 90_000, "every event to settle");
    await expectSettledOnce(traffic, sessions, start);
    const { rows } = await pgPool().query<{ by: string }>(
      "SELECT DISTINCT split_part(settled_by, ':', 2) AS by FROM settle_cursors WHERE settled_by IS NOT NULL",
    );
    const pids = workers.map((w) => String(w.pid));
    expect(rows.map((r) => r.by).sort()).toEqual(pids.sort());
  }, 120_000);

  it("a worker killed (SIGKILL) in the middle of a batch leaves nothing half done, and another takes its shards over", async () => {
    const sessions = 8_000;
    const start = await settledSoFar();
    const traffic = await acceptTraffic(sessions);
    const doomed = startWorker("settle-doomed");
    // Killed while a settle transaction of its own has written something and not committed.
    await waitFor(
      async () =>
        (await pgPool().query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'settle-doomed' AND backend_xid IS NOT NULL AND state <> 'idle'")).rows
          .length > 0,
      60_000,
      "the worker to be in the middle of a batch",
    );
    doomed.kill("SIGKILL");
    await new Promise((resolve) => doomed.once("exit", resolve));
    const before = await settledSoFar();
    expect(before).toBeLessThan(start + traffic.events.length);
    // Whatever it had settled is whole: events and cursors moved together.
    await waitFor(
      async () => (await pgPool().query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'settle-doomed'")).rows.length === 0,
      10_000,
      "the killed worker's connections to close",
    );
    expect(await db.adEvent.count({ where: { adId: traffic.ad.id } })).toBe(before - start);

    startWorker("settle-heir");
    await waitFor(async () => (await settledSoFar()) === start + traffic.events.length, 90_000, "every event to settle");
    await expectSettledOnce(traffic, sessions, start);
  }, 150_000);
});
