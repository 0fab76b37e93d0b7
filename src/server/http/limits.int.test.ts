// Rate limits and request limits, as a hostile client meets them: /v1 per client address and per
// publisher (429 with Retry-After, nothing stored), sign-in per address (counted in Postgres,
// before the password is hashed; the back-off per e-mail and address is in
// src/server/accounts/sign-in-limits.int.test.ts), and tRPC's batch and body limits, and its
// session cookie.
// Low limits for this file only: the env module reads them on first use.
process.env.TALLY_V1_RATE_PER_ADDRESS = "3"; // 30 requests per 10 s
process.env.TALLY_V1_RATE_PER_PUBLISHER = "5"; // 50 requests per 10 s
process.env.TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS = "5";

import { TRPCError } from "@trpc/server";
import { afterAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { db } from "@/server/db/client";
import { handleTrpcRequest, TRPC_BODY_LIMIT } from "@/server/trpc/http-handler";
import { createCaller } from "@/server/trpc/root";
import { postBeacon, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";

afterAll(() => {
  for (const name of ["TALLY_V1_RATE_PER_ADDRESS", "TALLY_V1_RATE_PER_PUBLISHER", "TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS"]) delete process.env[name];
});

async function setup() {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser();
  const { ad } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
  return { publisher, ad };
}

const from = (address: string) => ({ headers: { "X-Forwarded-For": address } });
const trpcCode = async (work: Promise<unknown>) =>
  work.then(
    () => "OK",
    (error: unknown) => (error instanceof TRPCError ? error.code : String(error)),
  );

describe("/v1 rate limits", () => {
  it("answer 429 with Retry-After past an address's limit, store nothing for it, and leave other addresses alone", async () => {
    const { publisher, ad } = await setup();
    const sessions = Array.from({ length: 31 }, (_, i) => `limited-${i}`);
    const served = await Promise.all(sessions.slice(0, 2).map((session) => serveOneAd(publisher.id, session)));
    const statuses: number[] = [];
    for (let i = 0; i < 30; i += 1) statuses.push((await postBeacon(served[0]!.impression_url, { session_id: sessions[0] }, from("192.0.2.1"))).status);
    expect(statuses).toEqual(Array(30).fill(202));
    const refused = await postBeacon(served[1]!.impression_url, { session_id: sessions[1] }, from("192.0.2.1"));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(10);
    expect(await refused.json()).toEqual({ error: { code: "too_many_requests", message: "too many requests from this address; retry later" } });
    expect(await db.adEvent.count({ where: { adId: ad.id, sessionId: sessions[1] } })).toBe(0);
    // The proxy-appended last entry is the client: a forged first entry does not change who it is.
    expect((await postBeacon(served[1]!.impression_url, { session_id: sessions[1] }, from("10.9.9.9, 192.0.2.1"))).status).toBe(429);
    expect((await postBeacon(served[1]!.impression_url, { session_id: sessions[1] }, from("192.0.2.2"))).status).toBe(202);
    expect(await db.adEvent.count({ where: { adId: ad.id, sessionId: sessions[1] } })).toBe(1);
  });

  it("answer 429 past a publisher's limit, whichever addresses the requests come from", async () => {
    const { publisher } = await setup();
    const served = await serveOneAd(publisher.id, "busy"); // the ad query counts for the publisher too
    const statuses: number[] = [];
    for (let i = 0; i < 50; i += 1) statuses.push((await postBeacon(served.impression_url, { session_id: "busy" }, from(`198.18.0.${i}`))).status);
    expect(statuses.slice(0, 49)).toEqual(Array(49).fill(202));
    expect(statuses[49]).toBe(429);
    const again = await postBeacon(served.impression_url, { session_id: "busy" }, from("198.18.1.1"));
    expect(again.status).toBe(429);
    expect(await again.json()).toMatchObject({ error: { code: "too_many_requests", message: "too many requests from this publisher; retry later" } });
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
