// The beacon handler's refusals, which all come before anything is stored (the 202 path needs
// Postgres: beacon-handler.int.test.ts; so do the rate limits, shared through it: limits.int.test.ts).
// No rate limits for this file: the env module reads them on first use; the hash key needs a
// well-formed database URL (never contacted here).
process.env.DATABASE_URL ??= "postgresql://unit@localhost/unused";
process.env.TALLY_V1_RATE_PER_ADDRESS = "0";
process.env.TALLY_V1_RATE_PER_PUBLISHER = "0";
process.env.TALLY_V1_RATE_PER_PUBLISHER_ADDRESS = "0";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { env } from "@/env";
import { sessionHashOf, signBeaconToken } from "@/server/pipeline/accept/beacons/beacon-token";
import { BEACON_BODY_LIMIT, type BeaconRequest, beaconAddressOf, handleBeaconRequest } from "./beacon-handler";
import { resetV1Limits } from "./rate-limits";
import { readBodyWithin } from "./read-json-body";

beforeAll(() => resetV1Limits());
afterAll(() => {
  delete process.env.TALLY_V1_RATE_PER_ADDRESS;
  delete process.env.TALLY_V1_RATE_PER_PUBLISHER;
  delete process.env.TALLY_V1_RATE_PER_PUBLISHER_ADDRESS;
  resetV1Limits();
});

const ORIGIN = "https://shop.example";
const CORS = { "Access-Control-Allow-Origin": ORIGIN, "Access-Control-Allow-Credentials": "true", Vary: "Origin" };
const now = () => Math.floor(Date.now() / 1000);
let publishers = 0;
let addresses = 0;

function tokenFor(kind: "impression" | "click", options: { publisherId?: string; issuedAt?: number } = {}): string {
  publishers += 1;
  return signBeaconToken(
    {
      kind,
      requestId: "r",
      adId: "ad_x",
      campaignId: "cmp_x",
      advertiserId: "adv_x",
      publisherId: options.publisherId ?? `pub_${publishers}`,
      site: "s",
      placementName: "p",
      context: "home",
      adType: "banner",
      adSize: null,
      searchTerm: null,
      category: null,
      issuedAt: options.issuedAt ?? now(),
      sessionHash: sessionHashOf("s"),
    },
    env().BEACON_SIGNING_KEYS[0]!,
  );
}

/** A beacon whose body is read by the Fetch reader (the collector's has its own tests), counting the reads. */
function beacon(options: { body?: string; contentType?: string; address?: string } & Partial<Omit<BeaconRequest, "readBody">> = {}) {
  const { body = '{"session_id":"s"}', contentType = "application/json", address, ...fields } = options;
  addresses += 1;
  const source = new Request("http://tally.test/", { method: "POST", headers: { "Content-Type": contentType, Origin: ORIGIN }, body });
  const reads: number[] = [];
  const request: BeaconRequest = {
    method: "POST",
    kind: "impression",
    token: tokenFor("impression"),
    headers: source.headers,
    clientAddress: address ?? `192.0.2.${addresses}`,
    readBody: (limit) => {
      reads.push(limit);
      return readBodyWithin(source, limit);
    },
    ...fields,
  };
  return { request, reads };
}

const refusal = (code: string, message: string) => JSON.stringify({ error: { code, message } });

describe("the beacon handler", () => {
  it("answers a preflight with 204 and the CORS grant, reading nothing", async () => {
    const { request, reads } = beacon({ method: "OPTIONS", token: "not-even-a-token" });
    expect(await handleBeaconRequest(request)).toEqual({
      status: 204,
      headers: {
        ...CORS,
        "Access-Control-Allow-Methods": "POST, OPTIONS",
        "Access-Control-Allow-Headers": "Content-Type, Accept",
        "Access-Control-Max-Age": "86400",
      },
      body: "",
    });
    expect(reads).toEqual([]);
  });

  it("answers 405 with Allow to any method but POST and OPTIONS", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const { request, reads } = beacon({ method });
      expect(await handleBeaconRequest(request)).toEqual({
        status: 405,
        headers: {
          "Content-Type": "application/json",
          ...CORS,
          "X-Request-Id": expect.stringMatching(/^[0-9a-f-]{36}$/),
          Allow: "POST, OPTIONS",
          "Cache-Control": "no-store",
        },
        body: refusal("method_not_allowed", "use POST"),
      });
      expect(reads).toEqual([]);
    }
  });

  it("refuses a forged, misplaced or expired address before reading the body", async () => {
    const signed = tokenFor("impression");
    const forged = `${signed.slice(0, -2)}${signed.endsWith("AA") ? "BB" : "AA"}`;
    const cases = [
      { fields: { token: forged }, status: 404 },
      { fields: { kind: "click" }, status: 404 }, // an impression's token posted as a click
      { fields: beaconAddressOf("/v1/beacon/impression"), status: 404 }, // a path with no token
      { fields: { token: tokenFor("impression", { issuedAt: now() - 25 * 3600 }) }, status: 410 },
    ];
    for (const { fields, status } of cases) {
      const { request, reads } = beacon(fields);
      const answer = await handleBeaconRequest(request);
      expect(answer.status).toBe(status);
      expect(answer.body).toBe(status === 404 ? refusal("not_found", "unknown beacon address") : refusal("gone", "this beacon address has expired"));
      expect(answer.headers).toMatchObject({ ...CORS, "Cache-Control": "no-store" });
      expect(reads).toEqual([]);
    }
  });

  it("reads at most 16 KiB: 413 past it, the body judged on its content up to it", async () => {
    const over = beacon({ body: " ".repeat(BEACON_BODY_LIMIT + 1) });
    const answer = await handleBeaconRequest(over.request);
    expect(answer.status).toBe(413);
    expect(answer.body).toBe(refusal("payload_too_large", "the body is larger than 16384 bytes"));
    expect(over.reads).toEqual([16 * 1024]);
    const exactly = beacon({ body: " ".repeat(BEACON_BODY_LIMIT) });
    expect((await handleBeaconRequest(exactly.request)).status).toBe(400);
  });

  it("answers 400 to a body that is not JSON and 415 to another content type, which it does not read", async () => {
    const notJson = await handleBeaconRequest(beacon({ body: '{"session_id":' }).request);
    expect(notJson).toMatchObject({ status: 400, body: refusal("bad_request", "the body is not valid JSON") });
    const html = beacon({ contentType: "text/html; charset=utf-8" });
    expect(await handleBeaconRequest(html.request)).toMatchObject({
      status: 415,
      body: refusal("unsupported_media_type", "Content-Type must be application/json or text/plain, not text/html"),
    });
    expect(html.reads).toEqual([]);
  });
});
