// A file of its own: it points this file's process at a port where no database listens.
import { describe, expect, it } from "vitest";
import { freePort } from "@/cli/local/embedded-postgres";

describe("/v1 routes without a database", () => {
  it("answer 503 with Retry-After, never 202 for an event that was not stored", async () => {
    process.env.DATABASE_URL = `postgresql://tally:tally@127.0.0.1:${await freePort()}/tally`;
    const { env } = await import("@/env");
    const { sessionHashOf, signBeaconToken } = await import("@/server/pipeline/accept/beacons/beacon-token");
    const { handleBeacon, handleAdQuery, handleConversion } = await import("./events-routes");
    const token = signBeaconToken(
      {
        kind: "impression",
        requestId: "r",
        adId: "ad_x",
        campaignId: "cmp_x",
        advertiserId: "adv_x",
        publisherId: "pub_x",
        site: "s",
        placementName: "p",
        context: "home",
        adType: "banner",
        adSize: null,
        searchTerm: null,
        category: null,
        issuedAt: Math.floor(Date.now() / 1000),
        sessionHash: sessionHashOf("s"),
      },
      env().BEACON_SIGNING_KEYS[0]!,
    );
    const beacon = await handleBeacon(
      new Request(`http://t/v1/beacon/impression/${token}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"session_id":"s"}' }),
    );
    expect(beacon.status).toBe(503);
    expect(beacon.headers.get("retry-after")).toBe("5");
    expect(await beacon.json()).toEqual({ error: { code: "unavailable", message: "the event could not be stored; retry later" } });

    const ads = await handleAdQuery(
      new Request("http://t/v1/ads", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ publisher_id: "p", session_id: "s", context: "home", placements: [{ name: "x", types: ["banner"] }] }),
      }),
    );
    expect(ads.status).toBe(503);

    const conversion = await handleConversion(
      new Request("http://t/v1/beacon/conversion", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ publisher_id: "p", order_id: "o" }),
      }),
    );
    expect(conversion.status).toBe(503);
    expect(conversion.headers.get("retry-after")).toBe("5");
  });
});
