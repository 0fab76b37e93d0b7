// One file over 300 lines on purpose: every way a shipped batch could arrive twice or not at all, and what rows carry, over one set of fixtures.
// Exactly once across Postgres and ClickHouse: settled batches shipped twice, by two shippers at
// once, by a shipper killed between its insert and its mark, past the deduplication window, and
// with a row ClickHouse refuses; and the chdb session-settings leak. Rows arrive with every column
// Postgres keeps, search terms and categories included.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { pgPool } from "@/server/db/pg-pool";
import { sessionHashOf } from "@/server/pipeline/accept/beacons/beacon-token";
import { attributePendingConversions } from "@/server/pipeline/attribute/attribute-pending";
import { store } from "@/server/store";
import { insertTabSeparated, runCommand, selectRows } from "@/server/store/clickhouse/client";
import { CHROME } from "@/testing/beacon-log";
import { beacon, seedAcme } from "@/testing/report-fixture";
import { recordAndSettle, recordAndSettleConversion } from "@/testing/settle";
import { forgetShipped, oldestUnshippedRow, shipBatches } from "./ship-batches.sql";

const count = async (query: string) => Number((await selectRows<{ n: string }>(query))[0]!.n);
const eventsInClickhouse = () => count("SELECT count() AS n FROM ad_events");
const impressionsInRollups = () => count("SELECT sum(impressions) AS n FROM report_rollups");
const postgresCounted = async () =>
  Number((await pgPool().query<{ n: string }>("SELECT count(*) AS n FROM ad_events WHERE status = 'counted' AND kind = 'impression'")).rows[0]!.n);

// Through chdb, an insert's rows pass through a file in the data folder (client.ts): none may stay.
const insertFilesLeft = () => {
  const folder = path.join(process.env.CLICKHOUSE_URL!.slice("chdb:".length), "tally-inserts");
  return existsSync(folder) ? readdirSync(folder) : [];
};

let fixture: Awaited<ReturnType<typeof seedAcme>>;

beforeAll(async () => {
  fixture = await seedAcme();
});

describe("the ClickHouse store's settling", () => {
  it("is the store in use, writes no Postgres rollup rows, and stamps every settled row with an outbox batch", async () => {
    expect(store().name).toBe("clickhouse");
    const rollups = await pgPool().query("SELECT count(*)::int AS n FROM daily_rollups");
    expect(rollups.rows[0].n).toBe(0);
    const unstamped = await pgPool().query(
      "SELECT (SELECT count(*) FROM ad_events WHERE clickhouse_batch IS NULL) + (SELECT count(*) FROM attributions WHERE clickhouse_batch IS NULL) AS n",
    );
    expect(Number(unstamped.rows[0].n)).toBe(0);
    const batches = await pgPool().query("SELECT kind, sum(rows)::int AS rows FROM clickhouse_batches GROUP BY kind ORDER BY kind");
    const events = await pgPool().query("SELECT count(*)::int AS n FROM ad_events");
    const attributions = await pgPool().query("SELECT count(*)::int AS n FROM attributions");
    expect(batches.rows).toEqual([
      { kind: "ad_events", rows: events.rows[0].n },
      { kind: "attributions", rows: attributions.rows[0].n },
    ]);
    expect(attributions.rows[0].n).toBeGreaterThan(0);
  });
});

describe("shipping", () => {
  it("ships every batch once, and a batch shipped again counts once in events and rollups", async () => {
    const first = await shipBatches();
    expect(first.error).toBeNull();
    expect(first.batches).toBeGreaterThan(0);
    const events = await eventsInClickhouse();
    expect(events).toBe(Number((await pgPool().query("SELECT count(*) AS n FROM ad_events")).rows[0].n));
    expect(await impressionsInRollups()).toBe(await postgresCounted());
    expect((await shipBatches()).batches).toBe(0);

    // As if every mark were lost: each batch is sent again with its token.
    await pgPool().query("UPDATE clickhouse_batches SET shipped_at = NULL, leased_until = NULL, attempts = 0");
    const again = await shipBatches();
    expect(again.batches).toBe(first.batches);
    expect(await eventsInClickhouse()).toBe(events);
    expect(await impressionsInRollups()).toBe(await postgresCounted());
  });

  it("counts once when a shipper died between the insert and the mark, past what the deduplication window remembers", async () => {
    // A window of one insert: every later insert pushes a batch's token out of it.
    for (const table of ["ad_events", "attributions", "report_rollups", "order_rollups"]) {
      await runCommand(`ALTER TABLE ${table} MODIFY SETTING non_replicated_deduplication_window = 1`);
    }
    try {
      await beacon("impression", fixture.cpc, fixture.shopA, "window-1", new Date("2026-11-10T20:00:00Z"));
      await beacon("impression", fixture.cpc, fixture.shopA, "window-2", new Date("2026-11-10T20:01:00Z"));
      expect((await shipBatches()).batches).toBe(2);
      const events = await eventsInClickhouse();
      // The shipper that sent both was killed before its marks: both batches wait again, tried
      // before, their tokens long forgotten (the second insert pushed out the first's, and a
      // token-less insert the second's).
      await insertTabSeparated(
        "ad_events",
        ["event_id", "batch_id", "created_at", "advertiser_id", "spend_micros"],
        [["00000000-0000-4000-8000-00000000f111", "0", "2026-01-01 00:00:00.000", "filler", "0"]],
        "",
      );
      await pgPool().query(
        "UPDATE clickhouse_batches SET shipped_at = NULL, leased_until = NULL WHERE id IN (SELECT id FROM clickhouse_batches ORDER BY id DESC LIMIT 2)",
      );
      const retry = await shipBatches();
      expect(retry).toMatchObject({ batches: 2, rows: 0, error: null });
      expect(await eventsInClickhouse()).toBe(events + 1);
      expect(await impressionsInRollups()).toBe(await postgresCounted());
    } finally {
      for (const table of ["ad_events", "attributions", "report_rollups", "order_rollups"]) {
        await runCommand(`ALTER TABLE ${table} MODIFY SETTING non_replicated_deduplication_window = 10000`);
      }
      await runCommand("ALTER TABLE ad_events DELETE WHERE advertiser_id = 'filler' SETTINGS mutations_sync = 1");
    }
  });

  it("shares the work between two shippers at once without sending a batch twice", async () => {
    for (let i = 0; i < 6; i++) await beacon("impression", fixture.cpc, fixture.shopA, `two-shippers-${i}`, new Date("2026-11-11T10:00:00Z"));
    const [a, b] = await Promise.all([shipBatches(), shipBatches()]);
    expect(a.error ?? b.error).toBeNull();
    expect(a.rows + b.rows).toBe(6);
    expect(await eventsInClickhouse()).toBe(Number((await pgPool().query("SELECT count(*) AS n FROM ad_events")).rows[0].n));
  });

  it("sets aside a row ClickHouse refuses, with its reason, and ships the rest of its batch", async () => {
    for (let i = 0; i < 3; i++) await beacon("impression", fixture.cpc, fixture.shopA, `refused-${i}`, new Date("2026-11-12T10:00:00Z"));
    // A row only ClickHouse's own constraint refuses: negative spend.
    const { rows } = await pgPool().query<{ event_id: string }>(
      "UPDATE ad_events SET spend_micros = -1 WHERE event_id = (SELECT event_id FROM ad_events WHERE session_id = 'refused-1') RETURNING event_id::text",
    );
    const shipped = await shipBatches();
    expect(shipped.error).toBeNull();
    expect(shipped.setAside).toBe(1);
    const aside = await pgPool().query("SELECT row_key, reason FROM clickhouse_set_aside");
    expect(aside.rows).toEqual([{ row_key: rows[0]!.event_id, reason: expect.stringContaining("spend_not_negative") }]);
    expect(await count("SELECT count() AS n FROM ad_events WHERE session_id LIKE 'refused-%'")).toBe(2);
    const batch = await pgPool().query("SELECT set_aside, shipped_at FROM clickhouse_batches WHERE set_aside > 0");
    expect(batch.rows).toEqual([{ set_aside: 1, shipped_at: expect.any(Date) }]);

    // Shipped again, the refused row is not tried again and the others are not doubled.
    await pgPool().query("UPDATE clickhouse_batches SET shipped_at = NULL WHERE set_aside > 0");
    expect((await shipBatches()).setAside).toBe(0);
    expect(await count("SELECT count() AS n FROM ad_events WHERE session_id LIKE 'refused-%'")).toBe(2);
    expect(insertFilesLeft()).toEqual([]);
  });

  it("leaves a batch waiting, with the error, when ClickHouse itself fails", async () => {
    await beacon("impression", fixture.cpc, fixture.shopA, "offline", new Date("2026-11-13T10:00:00Z"));
    await runCommand("RENAME TABLE ad_events TO ad_events_away");
    try {
      const failed = await shipBatches();
      expect(failed.batches).toBe(0);
      expect(failed.error).toMatch(/ad_events/);
      const state = await store().shipping!.state();
      expect(state.waiting).toBe(1);
      expect(state.lastError).toMatch(/ad_events/);
      expect(insertFilesLeft()).toEqual([]);
    } finally {
      await runCommand("RENAME TABLE ad_events_away TO ad_events");
    }
    expect((await shipBatches()).batches).toBe(1);
    expect((await store().shipping!.state()).waiting).toBe(0);
  });

  it("does not let one insert's token drop the next insert without one (chdb keeps a call's settings on its session)", async () => {
    await runCommand("CREATE TABLE leak_check (n UInt32) ENGINE = MergeTree ORDER BY n SETTINGS non_replicated_deduplication_window = 100");
    await insertTabSeparated("leak_check", ["n"], [["1"]], "a-token");
    await insertTabSeparated("leak_check", ["n"], [["2"]], "");
    await insertTabSeparated("leak_check", ["n"], [["3"]], "");
    expect(await count("SELECT count() AS n FROM leak_check")).toBe(3);
  });

  it("carries any text through the TabSeparated rows it sends: tabs, line ends, backslashes, a literal \\N, and null", async () => {
    await runCommand("CREATE TABLE text_check (n UInt32, s Nullable(String)) ENGINE = MergeTree ORDER BY n");
    const values = ["tab\there", "line\nend", "cr\rhere", "back\\slash\\", "\\N", "", "émoji 🛒", null];
    await insertTabSeparated(
      "text_check",
      ["n", "s"],
      values.map((value, n) => [String(n), value]),
      "text-check",
    );
    const rows = await selectRows<{ s: string | null }>("SELECT s FROM text_check ORDER BY n");
    expect(rows.map((row) => row.s)).toEqual(values);
  });

  it("sends the waiting batches of a span of ids in one insert, and counts them once when that insert is sent again", async () => {
    // Each insert into a table takes the next block number; the parts say the last one taken.
    const lastBlock = async () => count("SELECT max(max_block_number) AS n FROM system.parts WHERE database = currentDatabase() AND table = 'ad_events'");
    // Six batches from the start of a span of ids, so they share one.
    await pgPool().query("SELECT setval(pg_get_serial_sequence('clickhouse_batches', 'id'), (SELECT (max(id) / 32 + 1) * 32 FROM clickhouse_batches))");
    for (let i = 0; i < 6; i++) await beacon("impression", fixture.cpc, fixture.shopA, `span-${i}`, new Date("2026-11-11T12:00:00Z"));
    const before = await lastBlock();
    const shipped = await shipBatches();
    expect(shipped).toMatchObject({ batches: 6, rows: 6, error: null });
    expect(await lastBlock()).toBe(before + 1);
    const events = await eventsInClickhouse();
    const impressions = await impressionsInRollups();

    // As if the insert's answer were lost before any mark: the same six go again as the same
    // insert, with the same token, and count once.
    const { rows } = await pgPool().query<{ id: string }>("SELECT b.id::text AS id FROM clickhouse_batches b ORDER BY b.id DESC LIMIT 6");
    await pgPool().query("UPDATE clickhouse_batches SET shipped_at = NULL, leased_until = NULL, attempts = 0 WHERE id = ANY($1::bigint[])", [
      rows.map((row) => row.id),
    ]);
    expect(await shipBatches()).toMatchObject({ batches: 6, rows: 6, error: null });
    expect(await eventsInClickhouse()).toBe(events);
    expect(await impressionsInRollups()).toBe(impressions);
  });

  it("lets new batches gather when asked to, until the oldest has waited long enough or a span's worth wait", async () => {
    await beacon("impression", fixture.cpc, fixture.shopA, "gather-0", new Date("2026-11-11T14:00:00Z"));
    expect(await shipBatches({ gatherSeconds: 60 })).toMatchObject({ batches: 0, error: null });
    await pgPool().query("UPDATE clickhouse_batches SET created_at = now() - interval '61 seconds' WHERE shipped_at IS NULL");
    expect(await shipBatches({ gatherSeconds: 60 })).toMatchObject({ batches: 1, rows: 1, error: null });

    for (let i = 1; i <= 31; i++) await beacon("impression", fixture.cpc, fixture.shopA, `gather-${i}`, new Date("2026-11-11T14:00:00Z"));
    expect(await shipBatches({ gatherSeconds: 60 })).toMatchObject({ batches: 0 });
    await beacon("impression", fixture.cpc, fixture.shopA, "gather-32", new Date("2026-11-11T14:00:00Z"));
    expect(await shipBatches({ gatherSeconds: 60 })).toMatchObject({ batches: 32, rows: 32, error: null });
  });

  it("ships any text Postgres holds as it is: tabs, line ends, backslashes, control characters, a literal \\N, and null", async () => {
    await beacon("impression", fixture.cpc, fixture.shopA, "odd-text", new Date("2026-11-11T13:00:00Z"));
    const odd = "tab\there line\nend cr\rhere back\\slash\\ \\N vt\vff\fbs\b émoji 🛒";
    await pgPool().query("UPDATE ad_events SET user_agent = $1, client_hash = NULL WHERE session_id = 'odd-text'", [odd]);
    expect((await shipBatches()).error).toBeNull();
    const [row] = await selectRows<{ user_agent: string; client_hash: string | null }>(
      "SELECT user_agent, client_hash FROM ad_events WHERE session_id = 'odd-text'",
    );
    expect(row).toEqual({ user_agent: odd, client_hash: null });
  });

  it("knows the earliest row not yet in ClickHouse, by the time the export reads it by, until it ships", async () => {
    await beacon("impression", fixture.cpc, fixture.shopA, "horizon-1", new Date("2026-11-14T09:00:00Z"));
    await beacon("impression", fixture.cpc, fixture.shopA, "horizon-2", new Date("2026-11-14T08:00:00Z"));
    expect(await oldestUnshippedRow()).toEqual(new Date("2026-11-14T08:00:00Z"));
    await shipBatches();
    expect(await oldestUnshippedRow()).toBeNull();
  });

  it("forgets shipped batches of days Postgres no longer keeps, and never one still waiting", async () => {
    await beacon("impression", fixture.cpc, fixture.shopA, "forget-waiting", new Date("2026-11-01T08:00:00Z"));
    const before = Number((await pgPool().query("SELECT count(*) AS n FROM clickhouse_batches")).rows[0].n);
    const old = Number(
      (await pgPool().query("SELECT count(*) AS n FROM clickhouse_batches WHERE shipped_at IS NOT NULL AND last_at < '2026-11-12'")).rows[0].n,
    );
    expect(old).toBeGreaterThan(0);
    expect(await forgetShipped(new Date("2026-11-12T00:00:00Z"))).toBe(old);
    const left = await pgPool().query("SELECT count(*)::int AS n, count(*) FILTER (WHERE shipped_at IS NULL)::int AS waiting FROM clickhouse_batches");
    expect(left.rows[0]).toEqual({ n: before - old, waiting: 1 });
  });

  it("ships the search term and category of each event and of the order line it wins, and nulls where there were none", async () => {
    const { cpc, shopA } = fixture;
    const session = `terms-${randomUUID()}`;
    const when = new Date("2026-11-15T10:00:00Z");
    for (const kind of ["impression", "click"] as const) {
      await recordAndSettle({
        claims: {
          kind,
          requestId: `terms-request-${session}`,
          adId: cpc.ad.id,
          campaignId: cpc.campaign.id,
          advertiserId: cpc.campaign.advertiserId,
          publisherId: shopA.id,
          site: shopA.sites[0]!.name,
          placementName: "grid",
          context: "search",
          adType: cpc.ad.type,
          adSize: cpc.ad.size,
          searchTerm: "acucar organico",
          category: "mercearia > doces",
          issuedAt: Math.floor(when.getTime() / 1000),
          sessionHash: sessionHashOf(session),
        },
        body: { session_id: session },
        userAgent: CHROME,
        now: when,
      });
    }
    await recordAndSettleConversion(
      {
        publisher_id: shopA.id,
        user_id: `u-${session}`,
        session_id: session,
        order_id: `o-${session}`,
        created_at: new Date("2026-11-15T10:30:00Z").toISOString(),
        channel: "app",
        email_hashed: createHash("sha256").update(`${session}@example.com`).digest("hex"),
        items: [{ sku: cpc.products[0]!.sku, quantity: 1, price: 10, promotional_price: 9 }],
      },
      new Date("2026-11-15T10:31:00Z"),
    );
    await attributePendingConversions({ settleMs: 0 });
    await beacon("impression", cpc, shopA, `no-terms-${session}`, when);
    expect((await shipBatches()).error).toBeNull();

    const kept = { search_term: "acucar organico", category: "mercearia > doces" };
    const events = await selectRows<{ kind: string; search_term: string | null; category: string | null }>(
      "SELECT kind, search_term, category FROM ad_events WHERE session_id = {session:String} ORDER BY kind DESC",
      { session },
    );
    expect(events).toEqual([
      { kind: "impression", ...kept },
      { kind: "click", ...kept },
    ]);
    const lines = await selectRows<{ event_kind: string; search_term: string | null; category: string | null }>(
      "SELECT event_kind, search_term, category FROM attributions WHERE session_id = {session:String}",
      { session },
    );
    expect(lines).toEqual([{ event_kind: "click", ...kept }]);
    const none = await selectRows<{ search_term: string | null; category: string | null }>(
      "SELECT search_term, category FROM ad_events WHERE session_id = {session:String}",
      { session: `no-terms-${session}` },
    );
    expect(none).toEqual([{ search_term: null, category: null }]);
  });
});
