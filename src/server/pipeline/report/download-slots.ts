// Who may start a report download now. A download holds a bulk connection (pg-pool.ts) for as
// long as its client takes the file, and the bulk pool is small, so:
// - one caller (an API key, or a signed-in person) runs at most TALLY_REPORT_DOWNLOADS_PER_KEY
//   downloads at once, and one account (all its keys and people) TALLY_REPORT_DOWNLOADS_PER_ACCOUNT,
//   counted over every process by transaction-level advisory locks taken on the download's own
//   connection inside its cursor's transaction: whatever ends the download (its end, a cut, the
//   client leaving, the process or the connection dying, Postgres's idle-transaction timeout)
//   ends the transaction and frees the slot, so no slot can leak;
// - in this process an account holds at most DATABASE_BULK_POOL_SIZE - 1 bulk connections, counted
//   in memory before a connection is taken (with the caller's own downloads here), so one account
//   never takes the last one: another account's download or the export job finds it.
import type pg from "pg";
import { env } from "@/env";
import { countReportRefusal } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { claimSlotsSql } from "./download-slots.sql";

/** Who asks, for the report limits: `key:<id>`, `client:<OAuth client id>` or `user:<id>`, and their account (`staff` for account managers). */
export interface Requester {
  caller: string;
  account: string;
}

/** How many downloads may run at once, and how long one past its account's share waits. */
export interface SlotLimits {
  perKey: number;
  perAccount: number;
  /** This process's bulk connections one account may hold. */
  perAccountHere: number;
  waitMs: number;
}

export function slotLimits(): SlotLimits {
  const config = env();
  return {
    perKey: config.TALLY_REPORT_DOWNLOADS_PER_KEY,
    perAccount: config.TALLY_REPORT_DOWNLOADS_PER_ACCOUNT,
    perAccountHere: Math.min(config.TALLY_REPORT_DOWNLOADS_PER_ACCOUNT, Math.max(1, config.DATABASE_BULK_POOL_SIZE - 1)),
    waitMs: config.TALLY_REPORT_DOWNLOAD_WAIT_SECONDS * 1000,
  };
}

/** Seconds a refused download is told to wait: a download of the benchmark's 135,000 rows takes about 2 s. */
const RETRY_AFTER_SECONDS = 5;

export function keyBusy(requester: Requester, perKey: number): TallyError {
  countReportRefusal("key_downloads");
  const who = requester.caller.startsWith("key:") ? "key" : requester.caller.startsWith("client:") ? "OAuth client" : "user";
  return new TallyError("too_many_requests", `a download for this ${who} is already running; at most ${perKey} at once`, {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

export function accountBusy(): TallyError {
  countReportRefusal("account_downloads");
  return new TallyError("too_many_requests", "this account's downloads already use its share of download connections; retry when one has ended", {
    retryAfterSeconds: RETRY_AFTER_SECONDS,
  });
}

// ---------------------------------------------------------------- this process's share

const holder = globalThis as unknown as { tallyDownloadShares?: { held: Map<string, number>; waiting: Set<() => void> } };

function shares() {
  holder.tallyDownloadShares ??= { held: new Map(), waiting: new Set() };
  return holder.tallyDownloadShares;
}

/**
 * A place among this process's downloads, for the caller (at most perKey) and its account (at
 * most perAccountHere), before any connection is taken: "key_busy" at once when the caller has
 * none, "account_busy" when the account has none by `deadline` (ms; one of its downloads here
 * ending wakes the wait). Else a function that gives the place back, once.
 */
export async function takeLocalShare(
  requester: Requester,
  limits: Pick<SlotLimits, "perKey" | "perAccountHere">,
  deadline: number,
): Promise<(() => void) | "key_busy" | "account_busy"> {
  const { held, waiting } = shares();
  const caller = `caller ${requester.caller}`;
  const account = `account ${requester.account}`;
  for (;;) {
    if ((held.get(caller) ?? 0) >= limits.perKey) return "key_busy";
    if ((held.get(account) ?? 0) < limits.perAccountHere) {
      for (const name of [caller, account]) held.set(name, (held.get(name) ?? 0) + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        for (const name of [caller, account]) {
          const left = (held.get(name) ?? 1) - 1;
          if (left > 0) held.set(name, left);
          else held.delete(name);
        }
        for (const wake of [...waiting]) wake();
      };
    }
    const wait = deadline - Date.now();
    if (wait <= 0) return "account_busy";
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, wait);
      waiting.add(wake);
    });
  }
}

// ---------------------------------------------------------------- every process's slots

/** What the advisory locks said: which kind of slot was full, if any. */
export type ClaimOutcome = "claimed" | "key_busy" | "account_busy";

// Slots are locks on a 64-bit hash of a name; the export's locks (export/runs.sql.ts) hash other names.
/**
 * Takes a free slot of the caller and one of the account, as locks of the transaction open on
 * `client`, in one round trip. A refusal leaves whatever it took to the transaction's end, which
 * the caller brings about at once.
 */
export async function claimSlots(client: pg.PoolClient, requester: Requester, limits: Pick<SlotLimits, "perKey" | "perAccount">): Promise<ClaimOutcome> {
  const { rows } = await client.query<{ key_slot: number | null; account_slot: number | null }>(claimSlotsSql(requester, limits));
  if (rows[0]?.key_slot === null || rows[0]?.key_slot === undefined) return "key_busy";
  if (rows[0].account_slot === null) return "account_busy";
  return "claimed";
}
