import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { pgPool } from "@/server/db/pg-pool";
import { postBeacon, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { settleAll } from "@/testing/settle";
import { handleMetrics } from "./metrics-route";

// Read by env() on first use, which no import above makes.
process.env.TALLY_METRICS_TOKEN = "metrics-token-for-this-test-file";

const scrape = (authorization?: string) =>
  handleMetrics(new Request("http://tally.test/api/metrics", { headers: authorization ? { Authorization: authorization } : {} }));
const value = (text: string, series: string) => {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe("GET /api/metrics", () => {
  it("refuses a missing or wrong token", async () => {
    for (const authorization of [undefined, "Bearer wrong", "metrics-token-for-this-test-file"]) {
      const response = await scrape(authorization);
      expect(response.status).toBe(401);
      expect(await response.text()).not.toContain("tally_");
    }
  });

  it("counts requests by route and outcome, and shows the settle backlog and lag until the beacons are settled", async () => {
    const publisher = await makePublisher();
    await makeCampaignWithAd({ advertiserId: (await makeAdvertiser()).id, publisherIds: [publisher.id] });
    const before = await (await scrape("Bearer metrics-token-for-this-test-file")).text();
    const accepted = (t: string) => value(t, 'tally_v1_requests_total{route="beacon",outcome="accepted"}') ?? 0;
    const refused = (t: string) => value(t, 'tally_v1_requests_total{route="beacon",outcome="refused"}') ?? 0;

    const served = await serveOneAd(publisher.id, "metered");
    for (const kind of ["impression_url", "click_url"] as const) {
      expect((await postBeacon(served[kind], { session_id: "metered" }, { settle: false })).status).toBe(202);
    }
    expect((await postBeacon(served.impression_url, "not json", { settle: false })).status).toBe(400);
    await pgPool().query("UPDATE beacon_log SET received_at = received_at - interval '30 seconds' WHERE session_id = 'metered'");

    const response = await scrape("Bearer metrics-token-for-this-test-file");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const during = await response.text();
    expect(accepted(during) - accepted(before)).toBe(2);
    expect(refused(during) - refused(before)).toBe(1);
    expect(value(during, "tally_settle_backlog_events")).toBe(2);
    expect(value(during, "tally_settle_lag_seconds")).toBeGreaterThanOrEqual(30);
    expect(value(during, "tally_log_partitions")).toBeGreaterThanOrEqual(1);
    expect(value(during, 'tally_write_queue_depth{writer="beacons"}')).toBe(0);
    // With Postgres as the store nothing is shipped, and no shipper's gauge is served.
    expect(during).not.toContain("tally_ship_");

    await settleAll();
    // A destination that has delivered nothing since it was created 200 days ago holds the raw rows since then.
    const stale = await db.exportDestination.create({
      data: {
        id: newId("dst"),
        accountId: publisher.id,
        name: "stale",
        bucket: "b",
        region: "us-east-1",
        credentialKind: "access_key",
        accessKeyId: "AKIAEXAMPLE",
        types: ["ad_events"],
        createdAt: new Date(Date.now() - 200 * 86_400_000),
      },
    });
    const after = await (await scrape("Bearer metrics-token-for-this-test-file")).text();
    expect(value(after, "tally_settle_backlog_events")).toBe(0);
    expect(value(after, "tally_settle_lag_seconds")).toBe(0);
    expect(value(after, 'tally_raw_partitions{table="ad_events"}')).toBeGreaterThanOrEqual(1);
    expect(value(after, 'tally_raw_bytes{table="ad_events"}')).toBeGreaterThan(0);
    expect(value(after, `tally_retention_held_seconds{destination="${stale.id}",type="ad_events"}`)).toBeGreaterThanOrEqual(199 * 86_400);
  });
});
