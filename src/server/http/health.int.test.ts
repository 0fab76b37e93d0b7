import { describe, expect, it } from "vitest";
import { pgPool } from "@/server/db/pg-pool";
import { postBeacon, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { settleAll } from "@/testing/settle";
import { forgetHealthLags, handleHealth } from "./health";

describe("GET /api/health", () => {
  it("answers 200 ok with the lags when the database is reachable and nothing is behind", async () => {
    forgetHealthLags();
    const response = await handleHealth();
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({
      status: "ok",
      database: "ok",
      lags: { settle_seconds: 0, settle_backlog: 0, attribution_seconds: 0, attribution_backlog: 0 },
    });
  });

  it("says degraded, still 200, when a beacon has waited past the settle threshold, and ok again once it is settled", async () => {
    const publisher = await makePublisher();
    await makeCampaignWithAd({ advertiserId: (await makeAdvertiser()).id, publisherIds: [publisher.id] });
    const served = await serveOneAd(publisher.id, "waiting-shopper");
    expect((await postBeacon(served.impression_url, { session_id: "waiting-shopper" }, { settle: false })).status).toBe(202);
    // Accepted two minutes ago, as if no worker had run since (the threshold is 60 s).
    await pgPool().query("UPDATE beacon_log SET received_at = received_at - interval '2 minutes' WHERE session_id = 'waiting-shopper'");
    forgetHealthLags();
    const behind = await handleHealth();
    expect(behind.status).toBe(200);
    const body = (await behind.json()) as { status: string; problems: string[]; lags: { settle_seconds: number; settle_backlog: number } };
    expect(body.status).toBe("degraded");
    expect(body.problems).toEqual([expect.stringMatching(/^settle is 1[23]\d s behind$/)]);
    expect(body.lags.settle_backlog).toBe(1);

    await settleAll();
    forgetHealthLags();
    expect(await (await handleHealth()).json()).toMatchObject({ status: "ok", lags: { settle_seconds: 0, settle_backlog: 0 } });
  });
});
