// With ClickHouse as the store: /api/health names it and says how far the shipper is behind,
// /api/metrics exposes the shipper's gauges, and GET /api/cron/ship ships what settling left in
// the outbox (behind the cron secret).
process.env.TALLY_METRICS_TOKEN = "shipper-token-for-this-test-file";
process.env.CRON_SECRET = "shipper-cron-secret-for-this-test-file";

import { describe, expect, it } from "vitest";
import { pgPool } from "@/server/db/pg-pool";
import { runCommand, selectRows } from "@/server/store/clickhouse/client";
import { postBeacon, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { handleShipCron } from "./cron";
import { forgetHealthLags, handleHealth } from "./health";
import { handleMetrics } from "./metrics-route";

const TOKEN = "Bearer shipper-token-for-this-test-file";
const health = async (authorization?: string) => {
  forgetHealthLags();
  const response = await handleHealth(new Request("http://tally.test/api/health", { headers: authorization ? { Authorization: authorization } : {} }));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> & { lags?: Record<string, unknown>; problems?: string[] } };
};
const metric = async (series: string) => {
  const text = await (await handleMetrics(new Request("http://tally.test/api/metrics", { headers: { Authorization: TOKEN } }))).text();
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};
const shipCron = async (authorization?: string) => {
  const response = await handleShipCron(new Request("http://tally.test/api/cron/ship", { headers: authorization ? { Authorization: authorization } : {} }));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const eventsInClickhouse = async (session: string) =>
  Number((await selectRows<{ n: string }>("SELECT count() AS n FROM ad_events WHERE session_id = {session:String}", { session }))[0]!.n);

async function settledImpression(session: string): Promise<void> {
  const publisher = await makePublisher();
  await makeCampaignWithAd({ advertiserId: (await makeAdvertiser()).id, publisherIds: [publisher.id] });
  const served = await serveOneAd(publisher.id, session);
  expect((await postBeacon(served.impression_url, { session_id: session })).status).toBe(202);
}

describe("with ClickHouse as the store", () => {
  it("health names the store and the shipper's lag; a batch waiting past TALLY_SHIP_LAG_ALERT_SECONDS makes it degraded until the cron route ships it", async () => {
    const idle = await health(TOKEN);
    expect(idle.body).toEqual({
      status: "ok",
      database: "ok",
      store: "clickhouse",
      lags: {
        settle_seconds: 0,
        settle_backlog: 0,
        attribution_seconds: 0,
        attribution_backlog: 0,
        ship_seconds: 0,
        ship_waiting_batches: 0,
        ship_set_aside_rows: 0,
      },
    });

    await settledImpression("shipper-health");
    // Settled two minutes ago, as if no shipper had run since (the threshold is 60 s).
    await pgPool().query("UPDATE clickhouse_batches SET created_at = created_at - interval '2 minutes' WHERE shipped_at IS NULL");
    expect(await health()).toEqual({ status: 200, body: { status: "degraded", store: "clickhouse" } });
    const behind = await health(TOKEN);
    expect(behind.body.problems).toEqual([expect.stringMatching(/^shipping to ClickHouse is 1[23]\d s behind, 1 batches waiting$/)]);
    expect(behind.body.lags).toMatchObject({ ship_waiting_batches: 1, ship_seconds: expect.any(Number) });
    expect(behind.body.lags!.ship_seconds as number).toBeGreaterThanOrEqual(120);
    expect(await metric("tally_ship_waiting_batches")).toBe(1);
    expect(await metric("tally_ship_lag_seconds")).toBeGreaterThanOrEqual(120);
    expect(await metric("tally_ship_set_aside_rows")).toBe(0);
    expect(await eventsInClickhouse("shipper-health")).toBe(0);

    for (const wrong of [undefined, "Bearer wrong"]) expect((await shipCron(wrong)).status).toBe(401);
    expect(await eventsInClickhouse("shipper-health")).toBe(0);
    const shipped = await shipCron("Bearer shipper-cron-secret-for-this-test-file");
    expect(shipped).toEqual({ status: 200, body: { store: "clickhouse", batches: 1, rows: 1, set_aside: 0, duration_ms: expect.any(Number) } });
    expect(await eventsInClickhouse("shipper-health")).toBe(1);

    expect((await health()).body).toEqual({ status: "ok", store: "clickhouse" });
    expect((await health(TOKEN)).body.lags).toMatchObject({ ship_seconds: 0, ship_waiting_batches: 0 });
    expect(await metric("tally_ship_waiting_batches")).toBe(0);
    expect(await metric("tally_ship_lag_seconds")).toBe(0);
    // Nothing left: the next call ships nothing and says so.
    expect((await shipCron("Bearer shipper-cron-secret-for-this-test-file")).body).toMatchObject({ store: "clickhouse", batches: 0, rows: 0 });
  });

  it("the cron route answers the rows ClickHouse refused, which metrics and health count, and ClickHouse's own failure, which metrics count as a failed step", async () => {
    const cron = "Bearer shipper-cron-secret-for-this-test-file";
    await settledImpression("shipper-refused");
    // A row only ClickHouse's own constraint refuses: negative spend.
    await pgPool().query("UPDATE ad_events SET spend_micros = -1 WHERE session_id = 'shipper-refused'");
    expect((await shipCron(cron)).body).toMatchObject({ store: "clickhouse", batches: 1, rows: 0, set_aside: 1 });
    expect(await metric("tally_ship_set_aside_rows")).toBe(1);
    expect((await health(TOKEN)).body.lags).toMatchObject({ ship_set_aside_rows: 1, ship_waiting_batches: 0 });

    await settledImpression("shipper-away");
    const failuresBefore = (await metric('tally_pipeline_step_failures_total{job="ship"}')) ?? 0;
    await runCommand("RENAME TABLE ad_events TO ad_events_away");
    try {
      const failed = await shipCron(cron);
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({ store: "clickhouse", batches: 0, rows: 0, error: expect.stringContaining("ad_events") });
      expect(await metric('tally_pipeline_step_failures_total{job="ship"}')).toBe(failuresBefore + 1);
      expect((await health(TOKEN)).body.lags).toMatchObject({ ship_waiting_batches: 1, ship_last_error: expect.stringContaining("ad_events") });
    } finally {
      await runCommand("RENAME TABLE ad_events_away TO ad_events");
    }
    expect((await shipCron(cron)).body).toMatchObject({ batches: 1, rows: 1 });
    expect(await eventsInClickhouse("shipper-away")).toBe(1);
  });
});
