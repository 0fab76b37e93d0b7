// The shared limiter against Postgres: several limiters stand for several processes (collectors,
// app servers) sharing one database. Each limiter has its own memory, as a process does; the clock
// is each test's, so that a count falls in the window the test means.
import { randomUUID } from "node:crypto";
import net from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@/cli/local/embedded-postgres";
import { pgPool } from "@/server/db/pg-pool";
import { postgresLeaseStore } from "./limit-windows.sql";
import { advanceOf, type LeaseAsk, type LeaseStore, SharedLimiter } from "./shared-limiter";

const WINDOW_MS = 10_000;
/** A window's start: every test's clock starts at one. */
const START = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;

/** The Postgres store, with each statement it was asked recorded (it does the work itself). */
function recorded(inner: LeaseStore = postgresLeaseStore()) {
  const statements: LeaseAsk[][] = [];
  const store: LeaseStore = {
    take: (asks) => {
      statements.push(asks);
      return inner.take(asks);
    },
    forgetBefore: (windowStartMs) => inner.forgetBefore(windowStartMs),
  };
  return { store, statements };
}

/** `count` limiters (processes) on one store and one clock. */
function processes(count: number, store: LeaseStore, clock: { now: number }, options: { leaseTimeoutMs?: number; onFailure?: () => void } = {}) {
  return Array.from(
    { length: count },
    () =>
      new SharedLimiter({
        store,
        windowMs: WINDOW_MS,
        now: () => clock.now,
        leaseTimeoutMs: options.leaseTimeoutMs,
        onLease: (outcome) => (outcome === "failed" ? options.onFailure?.() : undefined),
      }),
  );
}

const admitted = (verdicts: boolean[]) => verdicts.filter(Boolean).length;
const takenInDatabase = async (key: string, windowStartMs = START) =>
  (await pgPool().query<{ taken: number }>("SELECT taken FROM v1_limit_windows WHERE key = $1 AND window_start_ms = $2", [key, windowStartMs])).rows[0]
    ?.taken ?? 0;

const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end().catch(() => {});
});

describe("the shared limiter", () => {
  it("admits a flood spread over three processes up to the limit, not three times it, within one advance per process", async () => {
    const { store } = recorded();
    const clock = { now: START + 1 };
    const three = processes(3, store, clock);
    const key = `flood-${randomUUID()}`;
    // All at once, as a burst: every process spends its advance before any has asked the store.
    const verdicts = await Promise.all(Array.from({ length: 600 }, (_, i) => three[i % 3]!.take(key, 200)));
    expect(admitted(verdicts)).toBeGreaterThanOrEqual(200);
    expect(admitted(verdicts)).toBeLessThanOrEqual(200 + 3 * advanceOf(200));
    expect(await takenInDatabase(key)).toBe(200);
    // And in waves, as clients that wait for answers send them: the same bounds.
    const waves = `waves-${randomUUID()}`;
    const answered: boolean[] = [];
    for (let wave = 0; wave < 30; wave += 1)
      answered.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => three[(wave + i) % 3]!.take(waves, 200)))));
    expect(admitted(answered)).toBeGreaterThanOrEqual(200);
    expect(admitted(answered)).toBeLessThanOrEqual(200 + 3 * advanceOf(200));
    expect(await takenInDatabase(waves)).toBe(200);
  });

  it("admits exactly the limit from one process, and past it no more than the advances of the processes that had not asked", async () => {
    const { store } = recorded();
    const clock = { now: START + 2 };
    const [first, second, third] = processes(3, store, clock);
    const key = `exact-${randomUUID()}`;
    const verdicts: boolean[] = [];
    for (let i = 0; i < 260; i += 1) verdicts.push(await first!.take(key, 200));
    expect(verdicts).toEqual([...Array(200).fill(true), ...Array(60).fill(false)]);
    // The others hand out their advance before they learn the window is spent: the documented slack.
    const late = [];
    for (const limiter of [second!, third!]) for (let i = 0; i < 10; i += 1) late.push(await limiter.take(key, 200));
    expect(admitted(late)).toBe(2 * advanceOf(200));
    expect(await takenInDatabase(key)).toBe(200);
  });

  it("asks the store nothing for a key that stays within its advance, and once for every key that runs out in one turn", async () => {
    const { store, statements } = recorded();
    const clock = { now: START + 3 };
    const [limiter] = processes(1, store, clock);
    const prefix = randomUUID();
    // Shoppers: a few requests per address, well inside a 2,000 limit's advance (31).
    for (let n = 0; n < 1000; n += 1) for (let i = 0; i < 3; i += 1) expect(limiter!.take(`shopper-${prefix}-${n}`, 2000)).toBe(true);
    expect(statements).toEqual([]);
    // A limit of 10 has no advance: 100 keys' first requests in one turn go in one statement.
    const verdicts = await Promise.all(Array.from({ length: 100 }, (_, n) => limiter!.take(`small-${prefix}-${n}`, 10)));
    expect(verdicts).toEqual(Array(100).fill(true));
    expect(statements.map((asks) => asks.length)).toEqual([100]);
  });

  it("remembers a spent window in memory: a flood past it is refused at once, with no statement, until the window ends", async () => {
    const { store, statements } = recorded();
    const clock = { now: START + 4 };
    const [limiter] = processes(1, store, clock);
    const key = `spent-${randomUUID()}`;
    for (let i = 0; i < 120; i += 1) await limiter!.take(key, 100);
    const asked = statements.length;
    for (let i = 0; i < 10_000; i += 1) expect(limiter!.take(key, 100)).toBe(false);
    expect(statements.length).toBe(asked);
    expect(limiter!.retryAfterSeconds()).toBe(10);
    clock.now = START + WINDOW_MS - 1500;
    expect(limiter!.retryAfterSeconds()).toBe(2);
  });

  it("starts each window afresh, shared the same way, and forgets the windows before the last", async () => {
    const { store } = recorded();
    const clock = { now: START + 5 };
    const [first, second] = processes(2, store, clock);
    const key = `rolling-${randomUUID()}`;
    const spend = async (limiter: SharedLimiter, count: number) => {
      const verdicts = [];
      for (let i = 0; i < count; i += 1) verdicts.push(await limiter.take(key, 64));
      return admitted(verdicts);
    };
    expect(await spend(first!, 80)).toBe(64);
    expect(await spend(second!, 10)).toBe(advanceOf(64));
    clock.now = START + WINDOW_MS;
    expect(await spend(second!, 80)).toBe(64);
    expect(await spend(first!, 10)).toBe(advanceOf(64));
    expect(await takenInDatabase(key, START + WINDOW_MS)).toBe(64);
    // Two windows on, a process that takes a lease forgets what is older than the window before.
    clock.now = START + 2 * WINDOW_MS;
    expect(await spend(first!, 80)).toBe(64);
    const windows = async () =>
      (await pgPool().query<{ w: number }>("SELECT window_start_ms::float8 AS w FROM v1_limit_windows WHERE key = $1 ORDER BY 1", [key])).rows.map((r) => r.w);
    for (let i = 0; i < 50 && (await windows()).includes(START); i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await windows()).toEqual([START + WINDOW_MS, START + 2 * WINDOW_MS]);
  });

  it("counts in memory against the whole limit when the database is down, and asks it again in the next window", async () => {
    const pool = new pg.Pool({ connectionString: `postgresql://nobody@127.0.0.1:${await freePort()}/none`, connectionTimeoutMillis: 2000 });
    pools.push(pool);
    const { store, statements } = recorded(postgresLeaseStore(() => pool));
    let failures = 0;
    const clock = { now: START + 6 };
    const [limiter] = processes(1, store, clock, { onFailure: () => (failures += 1) });
    const key = `down-${randomUUID()}`;
    const verdicts = [];
    for (let i = 0; i < 250; i += 1) verdicts.push(await limiter!.take(key, 200));
    expect(verdicts).toEqual([...Array(200).fill(true), ...Array(50).fill(false)]);
    expect(statements.length).toBe(1);
    expect(failures).toBe(1);
    // Other keys of the window count in memory at once, without a statement that would fail again.
    expect(await limiter!.take(`down-other-${randomUUID()}`, 1)).toBe(true);
    expect(statements.length).toBe(1);
    clock.now = START + WINDOW_MS + 6;
    expect(await limiter!.take(`down-next-${randomUUID()}`, 1)).toBe(true);
    expect(statements.length).toBe(2);
    expect(failures).toBe(2);
  });

  it("counts in memory when the database does not answer within the lease timeout", async () => {
    // Accepts connections and never says a word, as a database host that hangs.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const pool = new pg.Pool({ connectionString: `postgresql://nobody@127.0.0.1:${(silent.address() as net.AddressInfo).port}/none` });
    pool.on("error", () => {});
    pools.push(pool);
    let failures = 0;
    const clock = { now: START + 7 };
    const [limiter] = processes(
      1,
      postgresLeaseStore(() => pool),
      clock,
      { leaseTimeoutMs: 200, onFailure: () => (failures += 1) },
    );
    const verdicts = [];
    for (let i = 0; i < 12; i += 1) verdicts.push(await limiter!.take(`hang-${randomUUID()}`, 10));
    expect(verdicts).toEqual(Array(12).fill(true));
    expect(failures).toBe(1);
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
});
