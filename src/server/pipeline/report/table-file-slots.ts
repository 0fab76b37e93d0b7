// Who may have a table file written now (POST /dashboard/table-file). A table file holds its
// table in memory and the event loop while it is parsed and written, so a slot is taken before
// its body is read, and given back once its file has gone out (or been cut):
// - one web process writes at most TALLY_TABLE_FILES_PER_PROCESS at once, whoever asks, and one
//   person at most TALLY_TABLE_FILES_PER_USER of them, counted in memory before anything else,
//   so a burst costs this process one or two bodies, not one per request;
// - one person has at most TALLY_TABLE_FILES_PER_USER, and one account (all its people; staff
//   together) TALLY_TABLE_FILES_PER_ACCOUNT, at once in every process together: transaction-level
//   advisory locks held on a request-pool connection for the file's time (download-slots.ts
//   does the same for report downloads), so whatever ends the file (its end, a cut, the process
//   or the connection dying, the connection's idle-transaction timeout) frees the slot.
import { env } from "@/env";
import { countDashboardRefusal } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { type DbConnection, pgPool } from "@/server/db/pg-pool";
import { BEGIN, ROLLBACK } from "@/server/db/transaction.sql";
import { claimTableFileSlotsSql } from "./table-file-slots.sql";

/** Who asks for a table file: the signed-in person, and their account (`staff` for account managers). */
export interface TableFileAsker {
  user: string;
  account: string;
}

export interface TableFileSlotLimits {
  perUser: number;
  perAccount: number;
  perProcess: number;
}

export function tableFileSlotLimits(): TableFileSlotLimits {
  const config = env();
  return { perUser: config.TALLY_TABLE_FILES_PER_USER, perAccount: config.TALLY_TABLE_FILES_PER_ACCOUNT, perProcess: config.TALLY_TABLE_FILES_PER_PROCESS };
}

/** A table file of the dashboard's size is written in a second or two. */
const RETRY_AFTER_SECONDS = 2;

type Busy = "user_busy" | "account_busy" | "process_busy";

const MESSAGES: Record<Busy, (limits: TableFileSlotLimits) => string> = {
  user_busy: (limits) => `a table file of yours is already being written; at most ${limits.perUser} at once`,
  account_busy: (limits) => `this account's people already have ${limits.perAccount} table files being written; retry when one is done`,
  process_busy: () => "the server is writing as many table files as it may at once; retry shortly",
};

function busy(reason: Busy, limits: TableFileSlotLimits): TallyError {
  countDashboardRefusal("table_file", reason);
  return new TallyError("too_many_requests", MESSAGES[reason](limits), { retryAfterSeconds: RETRY_AFTER_SECONDS });
}

const holder = globalThis as unknown as { tallyTableFileShares?: Map<string, number> };

/** This process's table files under way: "process" for all of them, and one count per person. */
function shares(): Map<string, number> {
  holder.tallyTableFileShares ??= new Map();
  return holder.tallyTableFileShares;
}

function takeLocalShare(asker: TableFileAsker, limits: TableFileSlotLimits): (() => void) | Busy {
  const held = shares();
  const user = `user ${asker.user}`;
  if ((held.get(user) ?? 0) >= limits.perUser) return "user_busy";
  if ((held.get("process") ?? 0) >= limits.perProcess) return "process_busy";
  for (const name of [user, "process"]) held.set(name, (held.get(name) ?? 0) + 1);
  return () => {
    for (const name of [user, "process"]) {
      const left = (held.get(name) ?? 1) - 1;
      if (left > 0) held.set(name, left);
      else held.delete(name);
    }
  };
}

/**
 * A slot for one table file of `asker`, or 429 (TallyError, with Retry-After) when the person, the
 * account or this process has none free. Gives back a function that frees the slot, once, however
 * often it is called; the caller must call it when the file has gone out or failed.
 */
export async function takeTableFileSlot(asker: TableFileAsker, limits: TableFileSlotLimits = tableFileSlotLimits()): Promise<() => Promise<void>> {
  const local = takeLocalShare(asker, limits);
  if (typeof local === "string") throw busy(local, limits);
  let client: DbConnection;
  try {
    client = await pgPool().connect();
  } catch (error) {
    local();
    throw error;
  }
  let claimed: { user_slot: number | null; account_slot: number | null } | undefined;
  try {
    await client.query(BEGIN);
    ({
      rows: [claimed],
    } = await client.query<{ user_slot: number | null; account_slot: number | null }>(claimTableFileSlotsSql(asker, limits)));
  } catch (error) {
    client.release(true);
    local();
    throw error;
  }
  const refusal: Busy | null = claimed?.user_slot === null || claimed === undefined ? "user_busy" : claimed.account_slot === null ? "account_busy" : null;
  let freed = false;
  const free = async () => {
    if (freed) return;
    freed = true;
    local();
    try {
      await client.query(ROLLBACK);
      client.release();
    } catch (error) {
      // The connection was lost or ended by its idle-transaction timeout: its locks went with it.
      client.release(error instanceof Error ? error : true);
    }
  };
  if (refusal) {
    await free();
    throw busy(refusal, limits);
  }
  return free;
}
