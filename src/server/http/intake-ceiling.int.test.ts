// The daily ceilings on unproven intake (src/server/pipeline/accept/intake-ceiling.ts), through the
// routes' handlers: a publisher's UTC day takes so many unproven orders and beacons, counted and in
// bytes, then 429 until the next day, with nothing of the refused stored; proven orders pass; the
// count lives in Postgres, so a second process (here: the same code with its memory forgotten)
// continues it rather than starting over.
// Small ceilings for this file only: env() reads them on first use, which no import below makes.
process.env.TALLY_UNPROVEN_ORDERS_PER_PUBLISHER_DAY = "12";
process.env.TALLY_UNPROVEN_ORDER_MB_PER_PUBLISHER_DAY = "1";
process.env.TALLY_BEACONS_PER_PUBLISHER_DAY = "6";
process.env.TALLY_BEACON_MB_PER_PUBLISHER_DAY = "1";

import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { orderTotalMicros } from "@/contracts/order-token";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { postgresLeaseStore } from "@/server/db/limit-windows.sql";
import { pgPool } from "@/server/db/pg-pool";
import { SharedLimiter } from "@/server/db/shared-limiter";
import { signOrderToken } from "@/server/pipeline/accept/conversions/order-proof";
import { rotateSigningSecret } from "@/server/pipeline/accept/conversions/signing-secrets";
import { DAY_MS, resetIntakeCeilings } from "@/server/pipeline/accept/intake-ceiling";
import { metricsText } from "@/server/upkeep/prometheus";
import { postBeacon, postConversion, serveOneAd } from "@/testing/events-client";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";

const CEILING_NAMES = [
  "TALLY_UNPROVEN_ORDERS_PER_PUBLISHER_DAY",
  "TALLY_UNPROVEN_ORDER_MB_PER_PUBLISHER_DAY",
  "TALLY_BEACONS_PER_PUBLISHER_DAY",
  "TALLY_BEACON_MB_PER_PUBLISHER_DAY",
];
afterAll(() => {
  for (const name of CEILING_NAMES) delete process.env[name];
  resetIntakeCeilings();
});

// Each test starts at 23:00 UTC of today: a refusal's Retry-After is the hour left of the day.
const ELEVEN_PM = Math.floor(Date.now() / DAY_MS) * DAY_MS + 23 * 3_600_000;
const clock = { now: ELEVEN_PM };
beforeEach(() => {
  clock.now = ELEVEN_PM;
  resetIntakeCeilings({ now: () => clock.now });
});

function order(publisherId: string, lines = 1, extra: object = {}) {
  return {
    publisher_id: publisherId,
    user_id: "ceiling-user",
    session_id: "ceiling-session",
    order_id: `ceiling-${randomUUID()}`,
    created_at: new Date().toISOString(),
    channel: "web",
    email_hashed: createHash("sha256").update("c@example.com").digest("hex"),
    // About 370 bytes a line as stored: 300 lines make an order of about 110 KB, as the flood sent.
    items: Array.from({ length: lines }, (_, i) => ({
      sku: `${i}-`.padEnd(150, "s"),
      product_id: "p".repeat(150),
      quantity: 1,
      price: 1,
      promotional_price: 1,
    })),
    ...extra,
  };
}

const loggedOrders = async (publisherId: string) =>
  (
    await pgPool().query<{ n: number; bytes: number }>(
      "SELECT count(*)::int AS n, coalesce(sum(bytes), 0)::int AS bytes FROM conversion_log WHERE conversion->>'publisher_id' = $1",
      [publisherId],
    )
  ).rows[0]!;
const loggedBeacons = async (publisherId: string) =>
  (await pgPool().query<{ n: number }>("SELECT count(*)::int AS n FROM beacon_log WHERE publisher_id = $1", [publisherId])).rows[0]!.n;
const refusals = async (intake: string, limit: string) => {
  const series = `tally_intake_ceiling_refusals_total{intake="${intake}",limit="${limit}"} `;
  const line = (await metricsText()).body.split("\n").find((l) => l.startsWith(series));
  return line === undefined ? 0 : Number(line.slice(series.length));
};
const statusesOf = async (count: number, send: () => Promise<{ status: number }>) => {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push((await send()).status);
  return statuses;
};

describe("the daily ceiling on unproven orders", () => {
  it("refuses the order past the day's count with 429 until the next UTC day, stores nothing of it, counts it, and takes orders again the next day", async () => {
    const publisher = await makePublisher();
    const before = await refusals("orders", "count");
    expect(await statusesOf(12, () => postConversion(order(publisher.id), { settle: false }))).toEqual(Array(12).fill(202));
    const refused = await postConversion(order(publisher.id), { settle: false });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("3600");
    expect(JSON.stringify(refused.body)).toContain(`publisher ${publisher.id} reached today's ceiling of unproven orders (12 a UTC day)`);
    expect((await loggedOrders(publisher.id)).n).toBe(12);
    expect(await refusals("orders", "count")).toBe(before + 1);
    // Another publisher's day is its own.
    const other = await makePublisher();
    expect((await postConversion(order(other.id), { settle: false })).status).toBe(202);

    clock.now += 3_600_000;
    expect((await postConversion(order(publisher.id), { settle: false })).status).toBe(202);
    expect((await loggedOrders(publisher.id)).n).toBe(13);
  });

  it("refuses past the day's bytes as stored: a flood of 110 KB orders stops within 1 MiB", async () => {
    const publisher = await makePublisher();
    const before = await refusals("orders", "bytes");
    const statuses = await statusesOf(11, () => postConversion(order(publisher.id, 300), { settle: false }));
    const logged = await loggedOrders(publisher.id);
    const kib = Math.ceil(logged.bytes / logged.n / 1024);
    expect(kib).toBeGreaterThan(100);
    // As many as fit in 1,024 KiB (about 9); a refused one did not spend the day's bytes, but did one of its 12 orders.
    const fit = Math.floor(1024 / kib);
    expect(statuses).toEqual([...Array(fit).fill(202), ...Array(11 - fit).fill(429)]);
    expect(logged.n).toBe(fit);
    expect(logged.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(await refusals("orders", "bytes")).toBe(before + 11 - fit);
    // A small order still fits in what is left.
    expect((await postConversion(order(publisher.id), { settle: false })).status).toBe(202);
  });

  it("never refuses an order proven by the publisher's API key or by a valid order token", async () => {
    const publisher = await makePublisher();
    const key = (await createApiKey({ actor: OPERATOR, accountId: publisher.id, name: "checkout" })).key;
    const { secret } = await rotateSigningSecret({ actor: OPERATOR, publisherId: publisher.id });
    expect(await statusesOf(13, () => postConversion(order(publisher.id), { settle: false }))).toEqual([...Array(12).fill(202), 429]);
    const keyed = await postConversion(order(publisher.id), { headers: { Authorization: `Bearer ${key}` }, settle: false });
    expect(keyed).toMatchObject({ status: 202, body: { verified: true } });
    const tokened = order(publisher.id);
    const token = signOrderToken(secret, tokened.order_id, orderTotalMicros(tokened.items));
    expect(await postConversion({ ...tokened, order_token: token }, { settle: false })).toMatchObject({ status: 202, body: { verified: true } });
    // A token that does not verify leaves the order unproven: refused like one with none.
    expect((await postConversion({ ...order(publisher.id), order_token: "ab".repeat(32) }, { settle: false })).status).toBe(429);
    expect((await loggedOrders(publisher.id)).n).toBe(14);
  });

  it("is one count for every process: a second one continues the day rather than starting it over", async () => {
    const publisher = await makePublisher();
    expect(await statusesOf(7, () => postConversion(order(publisher.id), { settle: false }))).toEqual(Array(7).fill(202));
    // Another process: the same database, no memory of this one's counts.
    resetIntakeCeilings({ now: () => clock.now });
    expect(await statusesOf(7, () => postConversion(order(publisher.id), { settle: false }))).toEqual([...Array(5).fill(202), 429, 429]);
    const taken = await pgPool().query<{ taken: number }>("SELECT taken FROM intake_ceiling_windows WHERE key = $1", [`orders count ${publisher.id}`]);
    expect(taken.rows).toEqual([{ taken: 12 }]);
  });
});

describe("the daily ceiling on beacons", () => {
  it("refuses the beacon past the day's count with 429, stores nothing of it, counts it, and leaves other publishers alone", async () => {
    const advertiser = await makeAdvertiser();
    const [publisher, other] = [await makePublisher(), await makePublisher()];
    await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id, other.id] });
    const before = await refusals("beacons", "count");
    const served = await serveOneAd(publisher.id, "ceiling-shopper");
    const send = (url: string) => postBeacon(url, { session_id: "ceiling-shopper" }, { settle: false });
    const statuses = await statusesOf(3, () => send(served.impression_url));
    statuses.push(...(await statusesOf(5, () => send(served.view_url))));
    expect(statuses).toEqual([...Array(6).fill(202), 429, 429]);
    const refused = await send(served.click_url);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toBe("3600");
    expect(await refused.text()).toContain(`publisher ${publisher.id} reached today's ceiling of beacons (6 a UTC day)`);
    expect(await loggedBeacons(publisher.id)).toBe(6);
    expect(await refusals("beacons", "count")).toBe(before + 3);

    const theirs = await serveOneAd(other.id, "their-shopper");
    expect((await postBeacon(theirs.impression_url, { session_id: "their-shopper" }, { settle: false })).status).toBe(202);
    clock.now += 3_600_000;
    expect((await send(served.click_url)).status).toBe(202);
    expect(await loggedBeacons(publisher.id)).toBe(7);
  });
});

describe("weighted shares of a day", () => {
  it("admit the capacity's weight across two processes, never past it, whichever process asks", async () => {
    const store = postgresLeaseStore(undefined, "intake_ceiling_windows");
    const limiters = [0, 1].map(() => new SharedLimiter({ store, windowMs: DAY_MS, now: () => clock.now, advance: (capacity) => Math.floor(capacity / 1024) }));
    const key = `weighted-${randomUUID()}`;
    const weights = Array.from({ length: 60 }, (_, i) => 1 + ((i * 7) % 23));
    const verdicts = await Promise.all(weights.map((weight, i) => limiters[i % 2]!.take(key, 300, weight)));
    const admittedWeight = weights.reduce((sum, weight, i) => sum + (verdicts[i] ? weight : 0), 0);
    expect(admittedWeight).toBeLessThanOrEqual(300);
    expect(admittedWeight).toBeGreaterThan(300 - 2 * 23);
    expect(limiters[0]!.usedHere(key) + limiters[1]!.usedHere(key)).toBe(admittedWeight);
    // Heavier than the whole day: refused at once.
    expect(limiters[0]!.take(`${key}-whole`, 300, 301)).toBe(false);
  });
});
