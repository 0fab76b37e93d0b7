// Each attack Tally has been tried with, at the production build under `next start` and at the
// collector: a clear 4xx for the attacker, every good request beside it stored, no job wedged,
// nothing billed that a rule says is invalid, and memory bounded.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { closeSql, eventually, floodAddress, HOSTS, post, postEndless, residentMb, serve, settled, sql, stack } from "./client";
import { legitimateTrafficGoesThrough } from "./legitimate-traffic";

const EMAIL = "c".repeat(64);
let fixture: { publisherId: string; advertiserId: string; sku: string; campaignId: string };

beforeAll(async () => {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 1000 });
  const sku = `HOSTILE-BEANS-${randomUUID()}`;
  const { campaign } = await makeCampaignWithAd({
    advertiserId: advertiser.id,
    publisherIds: [publisher.id],
    bidModel: "cpc",
    bid: 0.5,
    products: [{ sku, name: "Beans" }],
  });
  fixture = { publisherId: publisher.id, advertiserId: advertiser.id, sku, campaignId: campaign.id };
});
afterAll(closeSql);

const walletOf = async (id: string) => BigInt((await sql<{ w: string }>("SELECT wallet_balance_micros::text AS w FROM accounts WHERE id = $1", [id]))[0]!.w);
const order = (session: string, user: string, items: unknown[], extra: Record<string, unknown> = {}) => ({
  publisher_id: fixture.publisherId,
  user_id: user,
  session_id: session,
  order_id: `order-${randomUUID()}`,
  created_at: new Date().toISOString(),
  channel: "web",
  email_hashed: EMAIL,
  items,
  ...extra,
});

describe.each(HOSTS)("at $name", (host) => {
  it("refuses an order whose numbers would overflow money, and attribution goes on with the next order", async () => {
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    const ad = await serve(host, fixture.publisherId, shopper.session);
    expect((await post(ad.click_url, { session_id: shopper.session, user_id: shopper.user })).status).toBe(202);
    const poison = await post(
      `${host.url}/v1/beacon/conversion`,
      order(shopper.session, shopper.user, [{ sku: fixture.sku, quantity: 1e6, price: 1e9, promotional_price: 1e9 }]),
    );
    expect(poison.status).toBe(422);
    const paths = (poison.json() as { instancePath: string }[]).map((entry) => entry.instancePath);
    expect(paths).toEqual(expect.arrayContaining(["/items/0/quantity", "/items/0/promotional_price"]));

    const good = order(shopper.session, shopper.user, [{ sku: fixture.sku, quantity: 2, price: 5, promotional_price: 4 }]);
    expect((await post(`${host.url}/v1/beacon/conversion`, good)).status).toBe(202);
    await eventually(
      "the good order is attributed",
      async () => (await sql("SELECT 1 FROM attributions WHERE publisher_id = $1 AND order_id = $2", [fixture.publisherId, good.order_id])).length === 1,
    );
  });

  it("refuses beacons and orders holding what Postgres cannot store, and stores every good one sent with them", async () => {
    const sessions = Array.from({ length: 30 }, () => `s-${randomUUID()}`);
    const ads = await Promise.all(sessions.map((session) => serve(host, fixture.publisherId, session)));
    const nul = await serve(host, fixture.publisherId, "nul-target");
    const answers = await Promise.all([
      post(nul.impression_url, { session_id: "nul\u0000session" }),
      ...ads.map((ad, i) => post(ad.impression_url, { session_id: sessions[i] })),
    ]);
    expect(answers[0]!.status).toBe(422);
    expect(answers.slice(1).map((a) => a.status)).toEqual(Array(30).fill(202));
    expect(Number((await sql<{ n: string }>("SELECT count(*) AS n FROM beacon_log WHERE session_id = ANY($1)", [sessions]))[0]!.n)).toBe(30);
    await settled();
    expect(Number((await sql<{ n: string }>("SELECT count(*) AS n FROM ad_events WHERE session_id = ANY($1)", [sessions]))[0]!.n)).toBe(30);

    const orders = Array.from({ length: 10 }, () =>
      order(`s-${randomUUID()}`, `u-${randomUUID()}`, [{ sku: fixture.sku, quantity: 1, price: 1, promotional_price: 1 }]),
    );
    const bad = [
      order("s", "u", [{ sku: "NUL\u0000SKU", quantity: 1, price: 1, promotional_price: 1 }]),
      order("s", "u", [{ sku: "S", quantity: 1, price: 1, promotional_price: 1 }], { order_id: "lone \ud800 surrogate" }),
      order("s", "u", [{ sku: "S", quantity: 1, price: 1, promotional_price: 1 }], { city: "trailing \udfff" }),
    ];
    const results = await Promise.all([...bad, ...orders].map((body) => post(`${host.url}/v1/beacon/conversion`, body)));
    expect(results.slice(0, 3).map((r) => r.status)).toEqual([422, 422, 422]);
    expect(results.slice(3).map((r) => r.status)).toEqual(Array(10).fill(202));
    await settled();
    const stored = await sql<{ order_id: string }>("SELECT order_id FROM conversions WHERE publisher_id = $1 AND order_id = ANY($2)", [
      fixture.publisherId,
      orders.map((o) => o.order_id),
    ]);
    expect(stored).toHaveLength(10);
  });

  it("answers a body of 256 KiB of empty items with a small 422, quickly", async () => {
    const items = `[${Array(87_000).fill("{}").join(",")}]`;
    const body = `{"publisher_id":"${fixture.publisherId}","items":${items}}`;
    expect(body.length).toBeLessThanOrEqual(256 * 1024);
    const started = Date.now();
    const answer = await post(`${host.url}/v1/beacon/conversion`, body);
    expect(answer.status).toBe(422);
    expect(answer.text.length).toBeLessThan(64 * 1024);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("takes a click address posted with 1,000 invented sessions only up to its hourly allowance, stores those as invalid traffic, and bills none of it", async () => {
    const wallet = await walletOf(fixture.advertiserId);
    const ad = await serve(host, fixture.publisherId, `victim-${randomUUID()}`);
    const invented = Array.from({ length: 1000 }, () => `invented-${randomUUID()}`);
    const statuses: number[] = [];
    for (let i = 0; i < invented.length; i += 50) {
      statuses.push(...(await Promise.all(invented.slice(i, i + 50).map((session) => post(ad.click_url, { session_id: session })))).map((a) => a.status));
    }
    // One beacon address: TALLY_BEACONS_PER_TOKEN_PER_HOUR (20) in this events process, then 429.
    expect(statuses.filter((status) => status === 202)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(980);
    await settled();
    const rows = await sql<{ status: string; n: string; spend: string }>(
      "SELECT status::text, count(*)::text AS n, sum(spend_micros)::text AS spend FROM ad_events WHERE session_id = ANY($1) GROUP BY 1",
      [invented],
    );
    expect(rows).toEqual([{ status: "session_mismatch", n: "20", spend: "0" }]);
    expect(await walletOf(fixture.advertiserId)).toBe(wallet);
  });

  it("answers a flood from one address with 429 and Retry-After, and stores nothing it refused", async () => {
    const address = floodAddress();
    const session = `flood-${randomUUID()}`;
    const ad = await serve(host, fixture.publisherId, session);
    const answers = [];
    for (let i = 0; i < 260; i += 20)
      answers.push(...(await Promise.all(Array.from({ length: 20 }, () => post(ad.impression_url, { session_id: session }, { address })))));
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.every((a) => a.status === 202 || a.status === 429)).toBe(true);
    expect(refused.length).toBeGreaterThanOrEqual(60);
    expect(refused.every((a) => Number(a.headers.get("retry-after")) >= 1)).toBe(true);
    await settled();
    const stored = Number((await sql<{ n: string }>("SELECT count(*) AS n FROM ad_events WHERE session_id = $1", [session]))[0]!.n);
    expect(stored).toBe(answers.filter((a) => a.status === 202).length);
  });

  it("reads no more of an endless chunked body than its limit, on every route that reads one, and its memory stays bounded", async () => {
    const before = residentMb(host.pid);
    const paths = [
      "/v1/beacon/conversion",
      "/v1/ads",
      `/v1/beacon/impression/${(await serve(host, fixture.publisherId, "chunks")).impression_url.split("/").pop()}`,
    ];
    if (host.name === "next start") paths.push("/api/trpc/auth.signIn");
    let peak = before;
    for (let round = 0; round < 5; round += 1) {
      const answers = await Promise.all(paths.map((path) => postEndless(`${host.url}${path}`)));
      for (const answer of answers) {
        expect(answer.status).toBe(413);
        // Answered long before the client stopped: the server read no further than its limit and a socket buffer or two.
        expect(answer.sentBytes).toBeLessThan(16 * 1024 * 1024);
      }
      peak = Math.max(peak, residentMb(host.pid));
    }
    expect(peak - before).toBeLessThan(150);
  });
});

describe("the dashboard's tRPC endpoint", () => {
  it("refuses a batch of sign-ins without running one password check", async () => {
    const counted = () => sql("SELECT key FROM rate_limits WHERE key LIKE 'sign-in-%' UNION ALL SELECT key FROM sign_in_backoff");
    const before = await counted();
    const started = Date.now();
    const guesses = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [i, { json: { email: "staff@tally.local", password: `guess-${i}` } }]));
    const answer = await post(`${stack.nextUrl}/api/trpc/${Array(100).fill("auth.signIn").join(",")}?batch=1`, guesses);
    expect(answer.status).toBe(400);
    expect(Date.now() - started).toBeLessThan(1_000);
    const huge = await post(`${stack.nextUrl}/api/trpc/${Array(1300).fill("auth.signIn").join(",")}?batch=1`, guesses);
    expect([400, 414, 431]).toContain(huge.status);
    // Not one attempt counted anywhere (other files' sign-ins may have left their own rows).
    expect(await counted()).toEqual(before);
  });
});

describe("after its poison values, floods and endless bodies", () => {
  it("a shopper's click and order are settled and attributed within 30 s, and health and the cron routes answer 200", async () => {
    await legitimateTrafficGoesThrough();
  });
});
