// The metrics token for this file only: the env module reads it on first use.
process.env.TALLY_METRICS_TOKEN = "health-token-for-this-test-file";

import { describe, expect, it } from "vitest";
import { pgPool } from "@/server/db/pg-pool";
import { postBeacon, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { settleAll } from "@/testing/settle";
import { forgetHealthLags, handleHealth } from "./health";

const publicProbe = (headers: Record<string, string> = {}) => handleHealth(new Request("http://tally.test/api/health", { headers }));
const withToken = () => publicProbe({ Authorization: "Bearer health-token-for-this-test-file" });

describe("GET /api/health", () => {
  it("answers 200 ok and nothing more to anyone, and the store (Postgres) and the lags with the metrics token", async () => {
    forgetHealthLags();
    const response = await publicProbe();
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ status: "ok", store: "postgres" });
    for (const wrong of ["Bearer health-token-for-this-test-filX", "Bearer ", "health-token-for-this-test-file"])
      expect(await (await publicProbe({ Authorization: wrong })).json()).toEqual({ status: "ok", store: "postgres" });

    const detailed = await withToken();
    expect(detailed.status).toBe(200);
    expect(await detailed.json()).toEqual({
      status: "ok",
      database: "ok",
      store: "postgres",
      lags: { settle_seconds: 0, settle_backlog: 0, attribution_seconds: 0, attribution_backlog: 0 },
    });
  });

  it("says degraded, still 200, when a beacon has waited past the settle threshold, with the reason and backlog only for the token, and ok again once settled", async () => {
    const publisher = await makePublisher();
    await makeCampaignWithAd({ advertiserId: (await makeAdvertiser()).id, publisherIds: [publisher.id] });
    const served = await serveOneAd(publisher.id, "waiting-shopper");
    expect((await postBeacon(served.impression_url, { session_id: "waiting-shopper" }, { settle: false })).status).toBe(202);
    // Accepted two minutes ago, as if no worker had run since (the threshold is 60 s).
    await pgPool().query("UPDATE beacon_log SET received_at = received_at - interval '2 minutes' WHERE session_id = 'waiting-shopper'");
    forgetHealthLags();
    const behind = await publicProbe();
    expect(behind.status).toBe(200);
    expect(await behind.json()).toEqual({ status: "degraded", store: "postgres" });
    const body = (await (await withToken()).json()) as { status: string; problems: string[]; lags: { settle_seconds: number; settle_backlog: number } };
    expect(body.status).toBe("degraded");
    expect(body.problems).toEqual([expect.stringMatching(/^settle is 1[23]\d s behind$/)]);
    expect(body.lags.settle_backlog).toBe(1);

    await settleAll();
    forgetHealthLags();
    expect(await (await publicProbe()).json()).toEqual({ status: "ok", store: "postgres" });
    expect(await (await withToken()).json()).toMatchObject({ status: "ok", lags: { settle_seconds: 0, settle_backlog: 0 } });
  });
});
