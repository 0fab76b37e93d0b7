// Rate limits and request limits, as a hostile client meets them: /v1 per client address, per
// publisher and address, and per publisher (429 with Retry-After, nothing stored; shared through
// Postgres: src/server/db/shared-limiter.int.test.ts tests the sharing itself), sign-in per
// address (counted in Postgres, before the password is hashed; the back-off per e-mail and address
// is in src/server/accounts/sign-in-limits.int.test.ts), tRPC's batch and body limits, and its
// session cookie.
// Low limits for this file only: the env module reads them on first use. The requests stand for
// requests through one proxy, which appends the client's address to X-Forwarded-For.
process.env.TALLY_V1_RATE_PER_ADDRESS = "3"; // 30 requests per 10 s
process.env.TALLY_V1_RATE_PER_PUBLISHER_ADDRESS = "2"; // 20
process.env.TALLY_V1_RATE_PER_PUBLISHER = "5"; // 50
process.env.TALLY_V1_LIGHT_ADDRESS_REQUESTS = "3";
process.env.TALLY_TRUSTED_PROXY_HOPS = "1";
process.env.TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS = "5";
// These floods replay one beacon address: its own hourly allowance is another limit (settle/caps.int.test.ts).
process.env.TALLY_BEACONS_PER_TOKEN_PER_HOUR = "1000";

import { TRPCError } from "@trpc/server";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { env } from "@/env";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { createUser } from "@/server/accounts/create-user";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { sessionHashOf, signBeaconToken } from "@/server/pipeline/accept/beacons/beacon-token";
import { handleTrpcRequest, TRPC_BODY_LIMIT } from "@/server/trpc/http-handler";
import { createCaller } from "@/server/trpc/root";
import { postBeacon, postConversion, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { handleBeaconRequest } from "./beacon-handler";
import { resetV1Limits } from "./rate-limits";

const LIMIT_NAMES = [
  "TALLY_V1_RATE_PER_ADDRESS",
  "TALLY_V1_RATE_PER_PUBLISHER_ADDRESS",
  "TALLY_V1_RATE_PER_PUBLISHER",
  "TALLY_V1_LIGHT_ADDRESS_REQUESTS",
  "TALLY_TRUSTED_PROXY_HOPS",
  "TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS",
  "TALLY_BEACONS_PER_TOKEN_PER_HOUR",
];
afterAll(() => {
  for (const name of LIMIT_NAMES) delete process.env[name];
  resetV1Limits();
});

// Each test counts in a window of its own, from its start: the clock stands still at it.
const WINDOW_MS = 10_000;
let windowStart = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
beforeEach(() => {
  windowStart += WINDOW_MS;
  const pinned = windowStart;
  resetV1Limits({ now: () => pinned });
});

async function setup() {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const { ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
  return { publisher, ad };
}

const logged = async (adId: string) => (await pgPool().query<{ n: number }>("SELECT count(*)::int AS n FROM beacon_log WHERE ad_id = $1", [adId])).rows[0]!.n;
const from = (address: string) => ({ headers: { "X-Forwarded-For": address }, settle: false });
const statusesOf = async (count: number, send: () => Promise<Response>) => {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push((await send()).status);
  return statuses;
};
const trpcCode = async (work: Promise<unknown>) =>
  work.then(
    () => "OK",
    (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
  );

describe("/v1 rate limits", () => {
  it("answer 429 with Retry-After past an address's limit over every publisher, store nothing for it, and leave other addresses alone", async () => {
    const [first, second] = [await setup(), await setup()];
    const served = await Promise.all([serveOneAd(first.publisher.id, "limited-a"), serveOneAd(second.publisher.id, "limited-b")]);
    // 15 for each publisher: within each one's limit per address (20), 30 in all, the address's.
    const statuses = [
      ...(await statusesOf(15, () => postBeacon(served[0]!.impression_url, { session_id: "limited-a" }, from("192.0.2.1")))),
      ...(await statusesOf(15, () => postBeacon(served[1]!.impression_url, { session_id: "limited-b" }, from("192.0.2.1")))),
    ];
    expect(statuses).toEqual(Array(30).fill(202));
    const refused = await postBeacon(served[1]!.impression_url, { session_id: "limited-b" }, { ...from("192.0.2.1"), settle: true });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBe(10);
    expect(await refused.json()).toEqual({ error: { code: "too_many_requests", message: "too many requests from this address; retry later" } });
    expect(await logged(second.ad.id)).toBe(15);
    // The proxy-appended last entry is the client: a forged first entry does not change who it is.
    expect((await postBeacon(served[1]!.impression_url, { session_id: "limited-b" }, from("10.9.9.9, 192.0.2.1"))).status).toBe(429);
    expect((await postBeacon(served[1]!.impression_url, { session_id: "limited-b" }, from("192.0.2.2"))).status).toBe(202);
    expect(await logged(second.ad.id)).toBe(16);
  });

  it("answer 429 past an address's limit for one publisher, and not for the next publisher", async () => {
    const [first, second] = [await setup(), await setup()];
    const served = await Promise.all([serveOneAd(first.publisher.id, "own-a"), serveOneAd(second.publisher.id, "own-b")]);
    const send = (n: 0 | 1) => postBeacon(served[n]!.impression_url, { session_id: n === 0 ? "own-a" : "own-b" }, from("192.0.2.3"));
    expect(await statusesOf(21, () => send(0))).toEqual([...Array(20).fill(202), 429]);
    const refused = await send(0);
    expect(await refused.json()).toEqual({
      error: { code: "too_many_requests", message: "too many requests from this address for this publisher; retry later" },
    });
    expect((await send(1)).status).toBe(202);
  });

  it("count a publisher's own server, sending orders with its API key, per key: not against its address's limit for that publisher", async () => {
    const { publisher } = await setup();
    const { key } = await createApiKey({ actor: OPERATOR, accountId: publisher.id, name: "checkout server" });
    const order = (n: number) => ({
      publisher_id: publisher.id,
      user_id: `u-${n}`,
      session_id: `s-${n}`,
      order_id: `server-${n}-${Date.now()}`,
      created_at: new Date().toISOString(),
      channel: "web",
      email_hashed: "c".repeat(64),
      items: [{ sku: "SKU", quantity: 1, price: 1, promotional_price: 1 }],
    });
    const send = (n: number, address: string, headers: Record<string, string> = {}) =>
      postConversion(order(n), { settle: false, headers: { "X-Forwarded-For": address, ...headers } });
    // Past 20 a window (TALLY_V1_RATE_PER_PUBLISHER_ADDRESS here) from the server's one address
    // (within the address's own 30), and all stored.
    const withKey = [];
    for (let n = 0; n < 25; n += 1) withKey.push((await send(n, "192.0.2.40", { Authorization: `Bearer ${key}` })).status);
    expect(withKey).toEqual(Array(25).fill(202));
    // Without the key, an address is an anonymous client of the publisher: that limit applies.
    const without = [];
    for (let n = 25; n < 47; n += 1) without.push((await send(n, "192.0.2.41")).status);
    expect(without).toEqual([...Array(20).fill(202), 429, 429]);
  });

  it("let a publisher's shoppers in once strangers have spent the publisher's limit, and refuse the strangers before reading a body", async () => {
    const { publisher, ad } = await setup();
    const served = await serveOneAd(publisher.id, "busy"); // the ad query counts for the publisher too
    const send = (address: string) => postBeacon(served.impression_url, { session_id: "busy" }, from(address));
    // Strangers, 18 requests each (inside their limits per address and per publisher): 1 + 18 + 18 + 13 = 50, the publisher's limit.
    expect(await statusesOf(18, () => send("198.18.0.1"))).toEqual(Array(18).fill(202));
    expect(await statusesOf(18, () => send("198.18.0.2"))).toEqual(Array(18).fill(202));
    expect(await statusesOf(18, () => send("198.18.0.3"))).toEqual([...Array(13).fill(202), ...Array(5).fill(429)]);
    const refused = await send("198.18.0.1");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: { code: "too_many_requests", message: "too many requests from this publisher; retry later" } });
    // Shoppers, a few requests each (TALLY_V1_LIGHT_ADDRESS_REQUESTS), are still let in and stored.
    for (let shopper = 1; shopper <= 5; shopper += 1) expect(await statusesOf(3, () => send(`203.0.113.${shopper}`))).toEqual([202, 202, 202]);
    expect((await send("203.0.113.1")).status).toBe(429);
    expect(await logged(ad.id)).toBe(18 + 18 + 13 + 5 * 3);
    // A heavy address is refused before its body is read.
    let reads = 0;
    const token = signBeaconToken(
      {
        kind: "impression",
        requestId: "r",
        adId: ad.id,
        campaignId: "c",
        advertiserId: "a",
        publisherId: publisher.id,
        site: "s",
        placementName: "p",
        context: "home",
        adType: "banner",
        adSize: null,
        searchTerm: null,
        category: null,
        issuedAt: Math.floor(Date.now() / 1000),
        sessionHash: sessionHashOf("busy"),
      },
      env().BEACON_SIGNING_KEYS[0]!,
    );
    const answer = await handleBeaconRequest({
      method: "POST",
      kind: "impression",
      token,
      headers: new Headers({ "Content-Type": "application/json" }),
      clientAddress: "198.18.0.2",
      readBody: () => {
        reads += 1;
        return Promise.resolve(new Uint8Array());
      },
    });
    expect(answer.status).toBe(429);
    expect(reads).toBe(0);
  });
});

const password = "correct horse battery staple";

describe("sign-in limits", () => {
  it("stop an address's guesses over many e-mails past its limit", async () => {
    const caller = createCaller({ viewer: null, clientAddress: "192.0.2.20" });
    const codes = [];
    for (let i = 0; i < 6; i += 1) codes.push(await trpcCode(caller.auth.signIn({ email: `nobody-${i}@tally.test`, password: "x" })));
    expect(codes).toEqual([...Array(5).fill("UNAUTHORIZED"), "TOO_MANY_REQUESTS"]);
  });
});

describe("tRPC over HTTP", () => {
  const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    handleTrpcRequest(
      new Request(`http://tally.test/api/trpc/${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...headers },
        body,
        duplex: "half",
      } as RequestInit),
    );

  it("refuses a batch that holds auth.signIn however its path is written, before any password is checked or counted", async () => {
    await createUser({ email: "batched@tally.test", name: "Batched", password, role: "staff" });
    const counted = async () => [await db.rateLimit.count({ where: { key: { startsWith: "sign-in-" } } }), await db.signInBackoff.count()];
    const before = await counted();
    const guesses = JSON.stringify(
      Object.fromEntries(Array.from({ length: 3 }, (_, i) => [i, { json: { email: "batched@tally.test", password: `guess-${i}` } }])),
    );
    const paths = [
      "auth.signIn,auth.signIn?batch=1",
      "auth.signIn%2Cauth.signIn?batch=1",
      "auth.signIn%2cauth.signIn%2Cauth.signIn?batch=1",
      "auth.signIn%252Cauth.signIn?batch=1",
      "auth%2EsignIn,auth%2esignIn?batch=1",
      "%61uth.signIn,auth.me?batch=1",
      "auth.signIn,?batch=1",
      ",auth.signIn?batch=1",
      "auth.me,AUTH.SIGNIN?batch=1",
      "auth.signIn/,auth.signIn?batch=1",
      "auth.signIn,auth.signIn?batch=%31",
      "auth.signIn,auth.signIn?batch=1&batch=0",
      "auth.signIn%2C%20auth.signIn?batch=1",
      "auth.signIn,auth.signIn",
    ];
    for (const path of paths) {
      const response = await post(path, guesses, { "X-Forwarded-For": "192.0.2.60" });
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(await response.json()).toEqual({ error: { code: "bad_request", message: "auth.signIn cannot be batched: send it alone" } });
    }
    const malformed = await post("auth.signIn%2", guesses);
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: { code: "bad_request", message: "the path is not valid percent-encoding" } });
    // Not one attempt was counted anywhere, so none was checked.
    expect(await counted()).toEqual(before);
  });

  it("signs in with one request, and sets the session cookie Secure over https only outside production", async () => {
    await createUser({ email: "cookie@tally.test", name: "Cookie", password, role: "staff" });
    const body = JSON.stringify({ json: { email: "cookie@tally.test", password } });
    const overHttp = await post("auth.signIn", body, { "X-Forwarded-For": "192.0.2.61" });
    expect(overHttp.status).toBe(200);
    const cookie = overHttp.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^tally_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Expires=/);
    expect(cookie).not.toContain("Secure");
    const overHttps = await handleTrpcRequest(
      new Request("https://tally.test/api/trpc/auth.signIn", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": "192.0.2.61" },
        body,
      }),
    );
    expect(overHttps.status).toBe(200);
    expect(overHttps.headers.get("set-cookie")).toMatch(/; HttpOnly; SameSite=Lax; Secure; Expires=/);
  });

  it("refuses a batch of more than 10 calls", async () => {
    const paths = Array(11).fill("auth.me").join(",");
    const response = await handleTrpcRequest(new Request(`http://tally.test/api/trpc/${paths}?batch=1&input=${encodeURIComponent("{}")}`));
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("Batch call exceeds maximum size");
    const ten = await handleTrpcRequest(
      new Request(`http://tally.test/api/trpc/${Array(10).fill("auth.me").join(",")}?batch=1&input=${encodeURIComponent("{}")}`),
    );
    expect(ten.status).toBe(200);
  });

  it("stops reading a body past 64 KiB, declared or streamed without a length", async () => {
    const declared = await post("auth.signIn", "x".repeat(TRPC_BODY_LIMIT + 1));
    expect(declared.status).toBe(413);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
      },
    });
    const streamed = await post("auth.signIn", endless);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({ error: { code: "payload_too_large", message: `the body is larger than ${TRPC_BODY_LIMIT} bytes` } });
    expect(pulled).toBeLessThan(TRPC_BODY_LIMIT + 64 * 1024);
  });
});
