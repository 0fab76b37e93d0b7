// Faults that are not the data's: an item that makes its step run past the statement timeout, an
// item that makes Tally's own code throw, and a step that fails for the database's reason. Each
// batch step (settling beacons, settling orders, attribution) shrinks around the item, sets it aside
// with its reason and moves on; a failing log never stops the others.
// A short step timeout for this file only: the env module reads it on first use.
process.env.TALLY_STEP_TIMEOUT_SECONDS = "1";

import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { appendBeaconBatch } from "@/server/pipeline/accept/beacons/append-beacons.sql";
import { recordConversion } from "@/server/pipeline/accept/conversions/record-conversion";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { ATTRIBUTION_BATCH_LINES, ordersWithinLines } from "@/server/store/postgres/attribute-batch.sql";
import { beaconToAppend } from "@/testing/beacon-log";
import { makeProductCampaign } from "@/testing/fixtures";
import { outcomeOf, recordAndSettle, settleAll } from "@/testing/settle";
import { rowsWithin } from "./settle-conversions";
import { settlePending } from "./settle-pending";

afterAll(() => {
  delete process.env.TALLY_STEP_TIMEOUT_SECONDS;
});

const fixture = () => makeProductCampaign({ wallet: 100 });

const order = (f: { publisher: { id: string }; sku: string }, shopper: { session: string; user: string }, orderId = `o-${randomUUID()}`) => ({
  publisher_id: f.publisher.id,
  user_id: shopper.user,
  session_id: shopper.session,
  order_id: orderId,
  created_at: new Date().toISOString(),
  channel: "web",
  email_hashed: "c".repeat(64),
  items: [{ sku: f.sku, quantity: 1, price: 3, promotional_price: 3 }],
});

/** A trigger that sleeps `seconds` in every insert into `table` whose `column` starts with `prefix`: an item far more costly than its step's time. */
async function slowInserts(table: string, column: string, prefix: string, seconds: number): Promise<() => Promise<void>> {
  const name = `slow_${table}_${randomUUID().replaceAll("-", "").slice(0, 8)}`;
  await pgPool().query(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.${column} LIKE '${prefix}%' THEN PERFORM pg_sleep(${seconds}); END IF; RETURN NEW; END $$`,
  );
  await pgPool().query(`CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  return async () => {
    await pgPool().query(`DROP TRIGGER ${name} ON ${table}`);
    await pgPool().query(`DROP FUNCTION ${name}()`);
  };
}

describe("a settle stretch", () => {
  it("sets aside a beacon whose settling runs past the statement timeout, settles the other nine, and the shard moves on", async () => {
    const f = await fixture();
    const restore = await slowInserts("ad_events", "session_id", "slow-", 3);
    try {
      const sessions = Array.from({ length: 10 }, (_, i) => (i === 6 ? `slow-${randomUUID()}` : `quick-${i}-${randomUUID()}`));
      const stretch = sessions.map((session) => beaconToAppend(f, session, { shard: 3 }));
      await appendBeaconBatch(stretch);
      const done = await settleAll(60_000);
      expect(done.failedSteps).toEqual([]);
      const outcomes = await Promise.all(stretch.map((beacon) => outcomeOf(beacon.eventId)));
      expect(outcomes.map((o) => o.status)).toEqual(sessions.map((_, i) => (i === 6 ? "set_aside" : "counted")));
      const { rows } = await pgPool().query<{ sqlstate: string; reason: string }>("SELECT sqlstate, reason FROM settle_set_aside WHERE event_id = $1", [
        stretch[6]!.eventId,
      ]);
      expect(rows).toEqual([{ sqlstate: "57014", reason: "canceling statement due to statement timeout (SQLSTATE 57014)" }]);
    } finally {
      await restore();
    }
    const later = beaconToAppend(f, `later-${randomUUID()}`, { shard: 3 });
    await appendBeaconBatch([later]);
    await settleAll();
    expect((await outcomeOf(later.eventId)).status).toBe("counted");
  });

  it("sets aside an order that makes Tally's own code throw (a logged order of JSON null), and stores the orders around it", async () => {
    const f = await fixture();
    const before = await recordConversion(order(f, { session: `s-${randomUUID()}`, user: "u" }));
    const broken = randomUUID();
    await pgPool().query("INSERT INTO conversion_log (event_id, conversion) VALUES ($1::uuid, 'null'::jsonb)", [broken]);
    const after = await recordConversion(order(f, { session: `s-${randomUUID()}`, user: "u" }));
    const done = await settleAll();
    expect(done).toMatchObject({ orders: 2, setAside: 1, failedSteps: [] });
    const stored = await db.conversion.findMany({ where: { eventId: { in: [before.eventId, after.eventId, broken] } }, select: { eventId: true } });
    expect(stored.map((c) => c.eventId).sort()).toEqual([before.eventId, after.eventId].sort());
    const { rows } = await pgPool().query<{ kind: string; sqlstate: string | null; reason: string }>(
      "SELECT kind, sqlstate, reason FROM settle_set_aside WHERE event_id = $1",
      [broken],
    );
    expect(rows).toEqual([{ kind: "conversion", sqlstate: null, reason: expect.stringMatching(/Cannot read properties of null/) }]);
  });

  it("settles every beacon shard while the orders' step fails for the database's reason, then the orders once it is back", async () => {
    const f = await fixture();
    const shopper = { session: `s-${randomUUID()}`, user: `u-${randomUUID()}` };
    const waiting = await recordConversion(order(f, shopper));
    // The table the orders are stored in is gone (as in a deploy whose schema is behind): not the order's fault.
    await pgPool().query("ALTER TABLE conversions RENAME TO conversions_away");
    let beacons: ReturnType<typeof beaconToAppend>[] = [];
    try {
      beacons = Array.from({ length: 16 }, (_, shard) => beaconToAppend(f, `b-${shard}-${randomUUID()}`, { shard }));
      await appendBeaconBatch(beacons);
      const done = await settlePending();
      expect(done.failedSteps).toEqual([{ log: "orders", error: expect.stringMatching(/relation "conversions" does not exist/) }]);
      expect(done.events).toBe(16);
      expect((await Promise.all(beacons.map((b) => outcomeOf(b.eventId)))).every((o) => o.status === "counted")).toBe(true);
      const { rows } = await pgPool().query("SELECT 1 FROM settle_set_aside WHERE event_id = $1", [waiting.eventId]);
      expect(rows).toEqual([]);
    } finally {
      await pgPool().query("ALTER TABLE conversions_away RENAME TO conversions");
    }
    await settleAll();
    expect(await db.conversion.count({ where: { eventId: waiting.eventId } })).toBe(1);
  });
});

describe("attribution", () => {
  it("sets aside an order whose attribution runs past the statement timeout, attributes the others, and the queue moves on", async () => {
    const f = await fixture();
    const shoppers = Array.from({ length: 6 }, (_, i) => ({ session: `buyer-${i}-${randomUUID()}`, user: `user-${i}-${randomUUID()}` }));
    const orderIds = shoppers.map((_, i) => (i === 2 ? `slow-${randomUUID()}` : `quick-${randomUUID()}`));
    for (const [i, shopper] of shoppers.entries()) {
      await recordAndSettle({
        claims: { ...beaconToAppend(f, shopper.session, { kind: "click" }).claims },
        body: { session_id: shopper.session, user_id: shopper.user },
        userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0",
        now: new Date(Date.now() - 60_000 - i),
      });
      await recordConversion(order(f, shopper, orderIds[i]));
    }
    await settleAll();
    const restore = await slowInserts("attributions", "order_id", "slow-", 3);
    try {
      const done = await attributePendingConversions({ settleMs: 0 });
      // Orders of the tests before this one wait in the same queue (and have no touch).
      expect(done).toMatchObject({ setAside: 1, attributedOrders: 5 });
      expect(done.orders).toBeGreaterThanOrEqual(6);
    } finally {
      await restore();
    }
    const failed = await db.conversion.findFirst({ where: { orderId: orderIds[2] }, select: { attributedAt: true, attributionFailedReason: true } });
    expect(failed?.attributedAt).not.toBeNull();
    expect(failed?.attributionFailedReason).toBe("canceling statement due to statement timeout (SQLSTATE 57014)");
    expect(await db.attribution.count({ where: { orderId: { in: orderIds } } })).toBe(5);
  });
});

describe("batch bounds", () => {
  it("cut a stretch of orders at its bytes and a batch at its lines, and always take the first item whatever its size", () => {
    expect(rowsWithin([100, 100, 100], 250)).toBe(2);
    expect(rowsWithin([100, 100, 100], 300)).toBe(3);
    expect(rowsWithin([500, 100], 250)).toBe(1);
    expect(rowsWithin([], 250)).toBe(0);
    expect(ordersWithinLines(Array(100).fill(500))).toBe(ATTRIBUTION_BATCH_LINES / 500);
    expect(ordersWithinLines([ATTRIBUTION_BATCH_LINES * 2, 1])).toBe(1);
    expect(ordersWithinLines([1, 2, 3])).toBe(3);
  });
});
