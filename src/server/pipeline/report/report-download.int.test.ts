// A download's limits at the domain level, on the real bulk pool: slots per caller and per account
// (advisory locks, so held by "another process" here through a connection of its own), this
// process's share of the pool, and the cuts of a stalled or overlong download.
import pg from "pg";
import sql from "sql-template-tag";
import { afterEach, describe, expect, it } from "vitest";
import { TallyError } from "@/server/core/errors";
import { bulkPool, pgPool } from "@/server/db/pg-pool";
import { reportStatement } from "@/server/store/postgres/report-runner";
import { metricsText } from "@/server/upkeep/prometheus";
import type { Requester, SlotLimits } from "./download-slots";
import { type DownloadTimeouts, openReportDownload } from "./report-download";

const numbers = (count: number) => reportStatement<{ n: number }, { n: number }>(sql`SELECT g AS n FROM generate_series(1, ${count}::int) g`, (raw) => raw);
const LIMITS: SlotLimits = { perKey: 2, perAccount: 2, perAccountHere: 2, waitMs: 300 };
const PATIENT: DownloadTimeouts = { stallMs: 60_000, totalMs: 60_000 };
const open = (requester: Requester, options: { limits?: Partial<SlotLimits>; timeouts?: Partial<DownloadTimeouts>; rows?: number } = {}) =>
  openReportDownload(numbers(options.rows ?? 10_000), requester, {
    limits: { ...LIMITS, ...options.limits },
    timeouts: { ...PATIENT, ...options.timeouts },
    batch: 10,
  });

const keyOf = (n: number, account = "acc_a"): Requester => ({ caller: `key:key_${n}`, account });
const count = async (where: string) => (await pgPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM ${where}`)).rows[0]!.n;
const advisoryLocks = () => count("pg_locks WHERE locktype = 'advisory'");
const idleInTransaction = () => count("pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'");
const bulkIdle = () => bulkPool().idleCount === bulkPool().totalCount && bulkPool().waitingCount === 0;
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as TallyError,
  );
const counter = async (name: string, reason: string) =>
  Number(new RegExp(`^${name}\\{reason="${reason}"\\} (\\d+)$`, "m").exec((await metricsText()).body)?.[1]);

async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const opened: AsyncIterableIterator<unknown>[] = [];
function track<T extends AsyncIterableIterator<unknown>>(download: T): T {
  opened.push(download);
  return download;
}
afterEach(async () => {
  for (const download of opened.splice(0)) await download.return?.();
  await eventually(() => bulkIdle());
});

describe("report download slots", () => {
  it("run at most perKey downloads of one caller: the next is a 429 until one ends, and an ended one leaves no lock", async () => {
    const first = track(await open(keyOf(1)));
    const second = track(await open(keyOf(1)));
    expect((await first.next()).value).toEqual(Array.from({ length: 10 }, (_, i) => ({ n: i + 1 })));
    await second.next();
    expect(await advisoryLocks()).toBe(4); // a caller's slot and an account's slot each

    const refusedBefore = await counter("tally_report_requests_refused_total", "key_downloads");
    const refused = await refusal(open(keyOf(1)));
    expect(refused).toBeInstanceOf(TallyError);
    expect(refused).toMatchObject({ code: "too_many_requests", message: "a download for this key is already running; at most 2 at once" });
    expect(refused!.details?.retryAfterSeconds).toBe(5);
    expect(await counter("tally_report_requests_refused_total", "key_downloads")).toBe(refusedBefore + 1);
    await first.return!();
    const third = track(await open(keyOf(1)));
    let rows = 0;
    for await (const batch of third) rows += batch.length;
    expect(rows).toBe(10_000);
    await second.return!();
    expect(await advisoryLocks()).toBe(0);
    expect(await idleInTransaction()).toBe(0);

    const person: Requester = { caller: "user:usr_1", account: "acc_b" };
    track(await open(person));
    track(await open(person));
    expect(await refusal(open(person))).toMatchObject({ message: "a download for this user is already running; at most 2 at once" });
  });

  it("hold an account to its share over all its keys, waiting briefly for one of its downloads to end, and leave another account its connection", async () => {
    const first = track(await open(keyOf(1)));
    track(await open(keyOf(2)));
    const waitedFrom = Date.now();
    const refused = await refusal(open(keyOf(3)));
    expect(Date.now() - waitedFrom).toBeGreaterThanOrEqual(250);
    expect(refused).toMatchObject({ code: "too_many_requests", message: expect.stringMatching(/^this account's downloads already use its share/) });
    // The third bulk connection was never taken for it: another account's download has it.
    const other = track(await open(keyOf(9, "acc_b")));
    expect((await other.next()).done).toBe(false);

    const waiting = open(keyOf(3), { limits: { waitMs: 10_000 } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(bulkPool().waitingCount).toBe(0); // it waits on the account's share, not in the pool's queue
    await first.return!();
    const admitted = track(await waiting);
    expect((await admitted.next()).done).toBe(false);
  });

  it("count an account's and a caller's slots held in another process", async () => {
    const elsewhere = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await elsewhere.connect();
    try {
      const hold = (name: string) => elsewhere.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [name]);
      await elsewhere.query("BEGIN");
      await hold("tally-download-account:acc_x:0");
      await hold("tally-download-account:acc_x:1");
      expect(await refusal(open(keyOf(1, "acc_x")))).toMatchObject({ code: "too_many_requests", message: expect.stringMatching(/its share/) });
      expect(bulkIdle()).toBe(true);
      const waiting = open(keyOf(1, "acc_x"), { limits: { waitMs: 10_000 } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await elsewhere.query("COMMIT");
      track(await waiting);

      await elsewhere.query("BEGIN");
      await hold("tally-download-key:key:key_7:0");
      await hold("tally-download-key:key:key_7:1");
      expect(await refusal(open(keyOf(7, "acc_y")))).toMatchObject({ message: "a download for this key is already running; at most 2 at once" });
      await elsewhere.query("ROLLBACK");
      track(await open(keyOf(7, "acc_y")));
    } finally {
      await elsewhere.end();
    }
  });

  it("are freed when the download's connection dies", async () => {
    const download = track(await open(keyOf(1), { limits: { perKey: 1 } }));
    await download.next();
    const { rows } = await pgPool().query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction' AND query LIKE 'FETCH%'",
    );
    expect(rows).toHaveLength(1);
    await pgPool().query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
    await eventually(async () => (await advisoryLocks()) === 0);
    // This process learns of the dead connection from its socket's close, a moment after Postgres
    // let the locks go: then the key's slot is free here too.
    await eventually(async () => {
      try {
        track(await open(keyOf(1), { limits: { perKey: 1 } }));
        return true;
      } catch (error) {
        if ((error as { code?: string }).code !== "too_many_requests") throw error;
        return false;
      }
    });
    await expect(
      (async () => {
        for await (const _ of download) {
          // reading until the dead connection fails the download
        }
      })(),
    ).rejects.toThrow();
  });
});

describe("report download cuts", () => {
  it("cut a download whose reader stops: its transaction ends, its connection and slots come back, and it is logged and counted", async () => {
    const before = await counter("tally_report_downloads_cut_total", "stalled");
    const download = track(await open(keyOf(1), { timeouts: { stallMs: 300 } }));
    expect((await download.next()).done).toBe(false);
    await eventually(async () => (await idleInTransaction()) === 1);
    await eventually(async () => (await idleInTransaction()) === 0 && bulkIdle());
    expect(await advisoryLocks()).toBe(0);
    expect(await counter("tally_report_downloads_cut_total", "stalled")).toBe(before + 1);
    // A reader that comes back finds the download ended in an error, never a short file that looks whole.
    await expect(download.next()).rejects.toMatchObject({ code: "unavailable", message: "the download was cut: its client took nothing for too long" });

    // One that is opened and never read at all goes the same way.
    track(await open(keyOf(2), { timeouts: { stallMs: 300 } }));
    await eventually(async () => (await counter("tally_report_downloads_cut_total", "stalled")) === before + 2 && bulkIdle());
    expect(await advisoryLocks()).toBe(0);
  });

  it("cut a download past its total time even while its reader keeps asking", async () => {
    const before = await counter("tally_report_downloads_cut_total", "too_long");
    const download = track(await open(keyOf(1), { timeouts: { stallMs: 5_000, totalMs: 600 }, rows: 1_000_000 }));
    let rows = 0;
    const read = (async () => {
      for await (const batch of download) {
        rows += batch.length;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await expect(read).rejects.toMatchObject({ code: "unavailable", message: "the download was cut: it ran past its time limit" });
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan(1_000_000);
    expect(await counter("tally_report_downloads_cut_total", "too_long")).toBe(before + 1);
    await eventually(async () => (await idleInTransaction()) === 0 && bulkIdle());
  });
});
