// One file over 300 lines on purpose: the generators and the checks of one property belong together.
// A generated stream of malformed requests mixed with valid ones (fast-check, a fixed seed that a
// failure prints; HOSTILE_SEED and HOSTILE_RUNS change it), sent in concurrent groups so bad items
// share group commits with good ones, at next start and at the collector. Every bad request gets
// its 4xx and stores nothing; every valid one answered 202 has its row; afterwards attribution and
// an export finish the valid work, nothing invalid is billed, and the servers' memory is bounded.
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createDestination } from "@/server/pipeline/export/destinations/destinations";
import { runDueExports } from "@/server/pipeline/export/job/run-exports";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { closeSql, eventually, HOSTS, type Host, post, residentMb, serve, settled, sql, stack } from "./client";

const SEED = Number(process.env.HOSTILE_SEED ?? 20_261_124);
const RUNS = Number(process.env.HOSTILE_RUNS ?? 150);

let publisherId: string;
let advertiserId: string;
let sku: string;
let walletBefore: bigint;
const memoryBefore = new Map<number, number>();
const sentOrders: string[] = [];
const sentSessions: string[] = [];

beforeAll(async () => {
  const publisher = await makePublisher();
  const advertiser = await makeAdvertiser({ wallet: 5000 });
  sku = `STREAM-${randomUUID()}`;
  await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id], bidModel: "cpc", bid: 0.05, products: [{ sku, name: "Streamed" }] });
  publisherId = publisher.id;
  advertiserId = advertiser.id;
  walletBefore = BigInt((await sql<{ w: string }>("SELECT wallet_balance_micros::text AS w FROM accounts WHERE id = $1", [advertiserId]))[0]!.w);
  for (const host of HOSTS) memoryBefore.set(host.pid, residentMb(host.pid));
  console.log(`hostile stream: seed ${SEED}, ${RUNS} runs per host (HOSTILE_SEED / HOSTILE_RUNS to change)`);
});
afterAll(closeSql);

// ------------------------------------------------------------------ generators

const REQUIRED = ["publisher_id", "user_id", "session_id", "order_id", "created_at", "items", "channel", "email_hashed"] as const;
const STRING_FIELDS = ["user_id", "session_id", "order_id", "channel", "brand", "uf", "city"] as const;
const ID_FIELDS = ["user_id", "session_id", "order_id", "channel"] as const;
const NOT_STORABLE = ["\u0000", "\ud800", "\udfff", "a\u0000b", "x\ud83d"] as const;
const CONTROLS = ["\u0001", "\u0007", "\u001b", "\u007f", "\t", "\n"] as const;
const money = fc.integer({ min: 0, max: 1_000_000 }).map((cents) => cents / 100);

const validItem = fc.record({
  sku: fc.oneof(
    fc.constant("SKU"),
    fc.string({ minLength: 1, maxLength: 20, unit: "grapheme-ascii" }).filter((s) => /^[\x21-\x7e]+$/.test(s)),
  ),
  quantity: fc.integer({ min: 1, max: 50 }),
  price: money,
  promotional_price: money,
});

function validOrder() {
  return fc
    .record({
      items: fc.array(validItem, { minLength: 1, maxLength: 5 }),
      gender: fc.constantFrom("F", "M", "O", null),
      // Any printable text: cities are free text (only what Postgres cannot store is refused).
      // biome-ignore lint/suspicious/noControlCharactersInRegex: valid cities leave out the control characters the stream sends as bad ones.
      city: fc.string({ maxLength: 30, unit: "grapheme" }).filter((text) => !/[\ud800-\udfff]/u.test(text) && !/[\u0000-\u001f\u007f]/.test(text)),
      // Fields the interface does not know are ignored, whatever they hold.
      noise: fc.dictionary(
        fc.string({ minLength: 1, maxLength: 8, unit: "grapheme-ascii" }).map((key) => `x_${key}`),
        fc.jsonValue({ maxDepth: 2 }),
        { maxKeys: 3 },
      ),
    })
    .map(({ items, gender, city, noise }) => {
      const session = `stream-s-${randomUUID()}`;
      return {
        ...noise,
        publisher_id: publisherId,
        user_id: `stream-u-${randomUUID()}`,
        session_id: session,
        order_id: `stream-o-${randomUUID()}`,
        created_at: new Date().toISOString(),
        channel: "web",
        email_hashed: "d".repeat(64),
        gender,
        city,
        items: items.map((item, i) => (i === 0 ? { ...item, sku } : item)),
      };
    });
}

type Case = {
  label: string;
  route: "conversion" | "beacon" | "ads";
  body: string;
  contentType?: string;
  expect: number[];
  valid?: { order?: string; session?: string };
};

const conversionCases: fc.Arbitrary<Case> = fc.oneof(
  validOrder().map((o): Case => ({ label: "valid order", route: "conversion", body: JSON.stringify(o), expect: [202], valid: { order: o.order_id } })),
  fc.tuple(validOrder(), fc.constantFrom(...REQUIRED)).map(([o, field]): Case => {
    const { [field]: _gone, ...rest } = o;
    return { label: `order without ${field}`, route: "conversion", body: JSON.stringify(rest), expect: [422] };
  }),
  fc.tuple(validOrder(), fc.constantFrom(...REQUIRED), fc.constantFrom<unknown>(42, true, null, [], { a: 1 }, -1.5)).map(
    ([o, field, value]): Case => ({
      label: `order with ${field} = ${JSON.stringify(value)}`,
      route: "conversion",
      body: JSON.stringify({ ...o, [field]: field === "items" && Array.isArray(value) ? 7 : value }),
      expect: [422],
    }),
  ),
  fc
    .oneof(
      fc.tuple(validOrder(), fc.constant("quantity"), fc.constantFrom(-1, 0, -1e-9, 10_001, 1e9, 1e300)),
      fc.tuple(validOrder(), fc.constantFrom("price", "promotional_price"), fc.constantFrom(-1, -1e-9, 100_000_001, 1e9, 1e15, 1e300)),
    )
    .map(
      ([o, field, value]): Case => ({
        label: `item ${field} = ${value}`,
        route: "conversion",
        body: JSON.stringify({ ...o, items: [{ ...o.items[0]!, [field]: value }] }),
        expect: [422],
      }),
    ),
  fc.tuple(validOrder(), fc.constantFrom(...STRING_FIELDS), fc.constantFrom(...NOT_STORABLE)).map(
    ([o, field, bad]): Case => ({
      label: `order ${field} holding ${JSON.stringify(bad)}`,
      route: "conversion",
      body: JSON.stringify({ ...o, [field]: `x${bad}y` }),
      expect: [422],
    }),
  ),
  fc.tuple(validOrder(), fc.constantFrom(...NOT_STORABLE)).map(
    ([o, bad]): Case => ({
      label: `item sku holding ${JSON.stringify(bad)}`,
      route: "conversion",
      body: JSON.stringify({ ...o, items: [{ ...o.items[0]!, sku: `S${bad}` }] }),
      expect: [422],
    }),
  ),
  fc.tuple(validOrder(), fc.constantFrom(...ID_FIELDS), fc.constantFrom(...CONTROLS)).map(
    ([o, field, control]): Case => ({
      label: `order ${field} with a control character`,
      route: "conversion",
      body: JSON.stringify({ ...o, [field]: `id${control}1` }),
      expect: [422],
    }),
  ),
  fc.tuple(validOrder(), fc.constantFrom("2999-01-01T00:00:00Z", "1999-01-01T00:00:00Z", "yesterday", "2026-02-30T00:00:00Z", "")).map(
    ([o, at]): Case => ({
      label: `order created_at ${at}`,
      route: "conversion",
      body: JSON.stringify({ ...o, created_at: at }),
      expect: [422],
    }),
  ),
  validOrder().map(
    (o): Case => ({ label: "order of 501 lines", route: "conversion", body: JSON.stringify({ ...o, items: Array(501).fill(o.items[0]) }), expect: [422] }),
  ),
  fc.string({ maxLength: 200 }).map((s): Case => ({ label: "not JSON", route: "conversion", body: `{${s},,`, expect: [400] })),
  validOrder().map(
    (o): Case => ({
      label: "form-encoded order",
      route: "conversion",
      body: JSON.stringify(o),
      contentType: "application/x-www-form-urlencoded",
      expect: [415],
    }),
  ),
  validOrder().map(
    (o): Case => ({ label: "order over 256 KiB", route: "conversion", body: JSON.stringify({ ...o, pad: "x".repeat(257 * 1024) }), expect: [413] }),
  ),
);

const beaconCases: fc.Arbitrary<Case> = fc.oneof(
  fc.constant(null).map((): Case => {
    const session = `stream-b-${randomUUID()}`;
    return { label: "valid beacon", route: "beacon", body: JSON.stringify({ session_id: session }), expect: [202], valid: { session } };
  }),
  fc
    .constantFrom<unknown>({}, { session_id: 7 }, { session_id: "" }, { session_id: "x".repeat(300) }, { session_id: null }, [], "s", 12, {
      session_id: "ok",
      user_id: 5,
    })
    .map((body): Case => ({ label: `beacon body ${JSON.stringify(body).slice(0, 40)}`, route: "beacon", body: JSON.stringify(body), expect: [422] })),
  fc.constantFrom(...NOT_STORABLE).map(
    (bad): Case => ({
      label: `beacon session holding ${JSON.stringify(bad)}`,
      route: "beacon",
      body: JSON.stringify({ session_id: `s${bad}` }),
      expect: [422],
    }),
  ),
  fc.constantFrom(...NOT_STORABLE).map(
    (bad): Case => ({
      label: `beacon user_id holding ${JSON.stringify(bad)}`,
      route: "beacon",
      body: JSON.stringify({ session_id: "s", user_id: `u${bad}` }),
      expect: [422],
    }),
  ),
  fc.string({ maxLength: 100 }).map((s): Case => ({ label: "beacon not JSON", route: "beacon", body: `[${s},,`, expect: [400] })),
  fc
    .constant(null)
    .map((): Case => ({ label: "beacon over 16 KiB", route: "beacon", body: JSON.stringify({ session_id: "s", pad: "x".repeat(17 * 1024) }), expect: [413] })),
);

const adQueryCases: fc.Arbitrary<Case> = fc.oneof(
  fc
    .constantFrom<unknown>({}, { publisher_id: "p" }, { placements: "x" }, [], null)
    .map((body): Case => ({ label: `ad query ${JSON.stringify(body)}`, route: "ads", body: JSON.stringify(body), expect: [422] })),
  fc.constantFrom(...NOT_STORABLE).map(
    (bad): Case => ({
      label: `ad query term holding ${JSON.stringify(bad)}`,
      route: "ads",
      expect: [422],
      body: JSON.stringify({
        publisher_id: "pub_demo_market",
        session_id: "s",
        context: "search",
        term: `t${bad}`,
        placements: [{ name: "x", types: ["banner"] }],
      }),
    }),
  ),
);

const group = fc.array(fc.oneof({ arbitrary: conversionCases, weight: 5 }, { arbitrary: beaconCases, weight: 4 }, { arbitrary: adQueryCases, weight: 1 }), {
  minLength: 3,
  maxLength: 8,
});

// ------------------------------------------------------------------ sending

async function send(host: Host, c: Case): Promise<number> {
  if (c.route === "conversion") return (await post(`${host.url}/v1/beacon/conversion`, c.body, { contentType: c.contentType })).status;
  if (c.route === "ads") return (await post(`${host.url}/v1/ads`, c.body, { contentType: c.contentType })).status;
  // Beacons go to an ad served to the session they name, when they name a usable one.
  const session = c.valid?.session ?? `stream-x-${randomUUID()}`;
  const ad = await serve(host, publisherId, session);
  const url = Math.random() < 0.5 ? ad.impression_url : ad.click_url;
  return (await post(url, c.body, { contentType: c.contentType })).status;
}

describe.each(HOSTS)("a malformed stream mixed with valid traffic at $name", (host) => {
  it("gets every bad request its 4xx and every valid one stored", async () => {
    await fc.assert(
      fc.asyncProperty(group, async (cases) => {
        const statuses = await Promise.all(cases.map((c) => send(host, c)));
        cases.forEach((c, i) => {
          if (!c.expect.includes(statuses[i]!))
            throw new Error(`${c.label}: answered ${statuses[i]}, expected ${c.expect.join(" or ")} (body ${c.body.slice(0, 160)})`);
        });
        const orders = cases.flatMap((c) => (c.valid?.order ? [c.valid.order] : []));
        const sessions = cases.flatMap((c) => (c.valid?.session ? [c.valid.session] : []));
        sentOrders.push(...orders);
        sentSessions.push(...sessions);
        const storedOrders = orders.length
          ? await sql("SELECT 1 FROM conversion_log WHERE conversion->>'publisher_id' = $1 AND conversion->>'order_id' = ANY($2)", [publisherId, orders])
          : [];
        // 202 means stored: in the log, before anything settles it.
        const storedEvents = sessions.length ? await sql("SELECT 1 FROM beacon_log WHERE session_id = ANY($1)", [sessions]) : [];
        if (storedOrders.length !== orders.length) throw new Error(`${orders.length - storedOrders.length} orders answered 202 are not stored`);
        if (storedEvents.length !== sessions.length) throw new Error(`${sessions.length - storedEvents.length} beacons answered 202 are not stored`);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});

describe("after the stream", () => {
  it("has nothing stored of the invalid requests, and bills nothing that a rule says is invalid", async () => {
    await settled();
    expect(await sql("SELECT 1 FROM ad_events WHERE session_id = ANY($1)", [sentSessions])).toHaveLength(sentSessions.length);
    expect(await sql("SELECT 1 FROM conversions WHERE publisher_id = $1 AND NOT (order_id = ANY($2))", [publisherId, sentOrders])).toEqual([]);
    expect(await sql("SELECT 1 FROM ad_events WHERE status <> 'counted' AND spend_micros <> 0")).toEqual([]);
    const [{ spent }] = (await sql<{ spent: string }>("SELECT coalesce(sum(spend_micros), 0)::text AS spent FROM ad_events WHERE advertiser_id = $1", [
      advertiserId,
    ])) as [{ spent: string }];
    const [{ w }] = (await sql<{ w: string }>("SELECT wallet_balance_micros::text AS w FROM accounts WHERE id = $1", [advertiserId])) as [{ w: string }];
    expect(BigInt(w)).toBe(walletBefore - BigInt(spent));
  });

  it("attributes every valid order, the stream's bad ones having wedged nothing", async () => {
    await eventually(
      "the attribution queue is empty",
      async () => (await sql("SELECT 1 FROM conversions WHERE publisher_id = $1 AND attributed_at IS NULL", [publisherId])).length === 0,
      60_000,
    );
    expect(await sql("SELECT 1 FROM conversions WHERE publisher_id = $1 AND attribution_failed_reason IS NOT NULL", [publisherId])).toEqual([]);
  });

  it("exports every counted event and every order to the publisher's bucket", async () => {
    const destination = await createDestination(
      {
        accountId: publisherId,
        name: "stream bucket",
        bucket: "tally-demo",
        region: "us-east-1",
        endpoint: stack.s3Endpoint,
        forcePathStyle: true,
        prefix: `stream-${randomUUID()}/`,
        credentials: { kind: "access_key", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
        types: ["ad_events", "orders"],
      },
      { actor: OPERATOR },
    );
    await settled();
    // "Run now", as if ten minutes had passed: the stream's rows are past the export's settle time.
    const later = new Date(Date.now() + 10 * 60_000);
    const { runs } = await runDueExports({ destinationId: destination.id, eager: true, now: () => later });
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs.filter((run) => run.status !== "succeeded")).toEqual([]);
    const exported = (type: string) => runs.filter((run) => run.type === type).reduce((n, run) => n + run.rows, 0);
    const [{ events }] = (await sql<{ events: number }>("SELECT count(*)::int AS events FROM ad_events WHERE publisher_id = $1 AND status = 'counted'", [
      publisherId,
    ])) as [{ events: number }];
    const [{ orders }] = (await sql<{ orders: number }>("SELECT count(*)::int AS orders FROM conversions WHERE publisher_id = $1", [publisherId])) as [
      { orders: number },
    ];
    expect(exported("ad_events")).toBe(events);
    expect(exported("orders")).toBe(orders);
  });

  it("kept each server's memory bounded", () => {
    for (const host of HOSTS) {
      const now = residentMb(host.pid);
      expect(now - memoryBefore.get(host.pid)!, `${host.name}: ${memoryBefore.get(host.pid)!.toFixed(0)} MB before, ${now.toFixed(0)} MB after`).toBeLessThan(
        200,
      );
    }
  });
});
