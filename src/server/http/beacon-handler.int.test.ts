// The beacon handler's accepting path, against Postgres: 202 only once the event is stored.

import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { settleAll } from "@/testing/settle";
import { type BeaconRequest, beaconAddressOf, handleBeaconRequest } from "./beacon-handler";
import { clientAddressHash } from "./client-address";

const AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";

/** A beacon posted to `url` as the transport-free handler takes it; its small body is handed over whole. */
function beaconTo(url: string, body: string): BeaconRequest {
  const headers = new Headers({ "Content-Type": "text/plain", Origin: "https://shop.example", "User-Agent": AGENT });
  const bytes = new TextEncoder().encode(body);
  return {
    method: "POST",
    ...beaconAddressOf(new URL(url).pathname),
    headers,
    clientAddress: "203.0.113.9",
    readBody: async () => bytes,
  };
}

async function setup() {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const { ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
  return { publisher, ad };
}

describe("the beacon handler, stored", () => {
  it("answers 202 {} with CORS and no caching once the event is stored, with its agent and the address's hash", async () => {
    const { publisher, ad } = await setup();
    const served = await serveOneAd(publisher.id, "handler-1");
    const answer = await handleBeaconRequest(beaconTo(served.impression_url, '{"session_id":"handler-1"}'));
    expect(answer).toEqual({
      status: 202,
      headers: {
        "Cache-Control": "no-store",
        "Access-Control-Allow-Origin": "https://shop.example",
        "Access-Control-Allow-Credentials": "true",
        Vary: "Origin",
        "X-Request-Id": expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
      body: "",
    });
    await settleAll();
    const events = await db.adEvent.findMany({ where: { adId: ad.id } });
    expect(events.map(({ kind, sessionId, userAgent, clientHash }) => ({ kind, sessionId, userAgent, clientHash }))).toEqual([
      { kind: "impression", sessionId: "handler-1", userAgent: AGENT, clientHash: clientAddressHash("203.0.113.9") },
    ]);
  });

  it("answers 422 with the validator's entries to JSON that is no beacon, and stores nothing", async () => {
    const { publisher, ad } = await setup();
    const served = await serveOneAd(publisher.id, "handler-2");
    const answer = await handleBeaconRequest(beaconTo(served.click_url, '{"session_id":7}'));
    expect(answer.status).toBe(422);
    expect(answer.headers["Cache-Control"]).toBe("no-store");
    expect(JSON.parse(answer.body)).toEqual([expect.objectContaining({ instancePath: "/session_id", keyword: "type" })]);
    expect(await db.$queryRaw`SELECT 1 FROM beacon_log WHERE ad_id = ${ad.id}`).toEqual([]);
  });
});
