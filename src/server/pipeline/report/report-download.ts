// A report download's rows, under its limits (docs/reports.md, "Limits"): the bulk connection and
// the download slots (download-slots.ts) are taken before the answer's status is chosen, so a
// refusal is a 429 and not a broken file; then a client that takes nothing for the stall time, or
// a download past its total time, is cut: the cursor's transaction ends, the connection goes back
// to the pool, and the cut is logged and counted. The client's stream then ends in an error, so
// it never keeps a file that looks complete.
import { env } from "@/env";
import { countDownloadCut, type DownloadCut } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import type { ReportRows, RowCursor } from "@/server/store/report-rows";
import { accountBusy, type ClaimOutcome, claimSlots, keyBusy, type Requester, type SlotLimits, slotLimits, takeLocalShare } from "./download-slots";

export interface DownloadTimeouts {
  /** Longest wait for the client to ask for more, from the answer's start and after each batch. */
  stallMs: number;
  /** Longest download, from the connection taken to the last row. */
  totalMs: number;
}

export function downloadTimeouts(): DownloadTimeouts {
  const config = env();
  return { stallMs: config.TALLY_REPORT_DOWNLOAD_STALL_SECONDS * 1000, totalMs: config.TALLY_REPORT_DOWNLOAD_MAX_SECONDS * 1000 };
}

/** Between two tries at an account's slots held by other processes. */
const CLAIM_RETRY_MS = 250;

class SlotRefused extends Error {}

export interface DownloadOptions {
  limits?: SlotLimits;
  timeouts?: DownloadTimeouts;
  /** Rows per batch read. */
  batch?: number;
}

/**
 * Every row of a report for `requester`'s download, batch by batch, once it holds a bulk
 * connection and its slots: 429 (TallyError) when its key has no free slot, or when its account
 * has none within TALLY_REPORT_DOWNLOAD_WAIT_SECONDS. The caller must iterate the rows or call
 * return(); a caller that does neither is cut like a stalled client.
 */
export async function openReportDownload<Row>(
  report: ReportRows<Row>,
  requester: Requester,
  options: DownloadOptions = {},
): Promise<AsyncIterableIterator<Row[]>> {
  const limits = options.limits ?? slotLimits();
  const deadline = Date.now() + limits.waitMs;
  for (;;) {
    const giveBack = await takeLocalShare(requester, limits, deadline);
    if (giveBack === "key_busy") throw keyBusy(requester, limits.perKey);
    if (giveBack === "account_busy") throw accountBusy();
    let outcome = "claimed" as ClaimOutcome;
    let cursor: RowCursor<Row>;
    try {
      cursor = await report.open({
        batch: options.batch ?? 200,
        claim: async (client) => {
          outcome = await claimSlots(client, requester, limits);
          if (outcome !== "claimed") throw new SlotRefused(outcome);
        },
      });
    } catch (error) {
      giveBack();
      if (!(error instanceof SlotRefused)) throw error;
      if (outcome === "key_busy") throw keyBusy(requester, limits.perKey);
      // The account's other downloads run in other processes: try again until the deadline.
      const wait = deadline - Date.now();
      if (wait <= 0) throw accountBusy();
      await new Promise((resolve) => setTimeout(resolve, Math.min(CLAIM_RETRY_MS, wait)));
      continue;
    }
    return guardedRows(cursor, requester, options.timeouts ?? downloadTimeouts(), giveBack);
  }
}

/** The cursor's rows as report rows, cut when the reader stalls or the download runs too long. */
function guardedRows<Row>(cursor: RowCursor<Row>, requester: Requester, timeouts: DownloadTimeouts, giveBack: () => void): AsyncIterableIterator<Row[]> {
  const started = Date.now();
  let rows = 0;
  /** Why it ended, once it has: read to the end, given up by its reader, cut, or its connection lost. */
  let outcome: "reading" | "done" | "returned" | DownloadCut | "lost" | "failed" = "reading";
  let stall: NodeJS.Timeout | undefined;

  const end = async (why: Exclude<typeof outcome, "reading">) => {
    if (outcome !== "reading") return;
    outcome = why;
    clearTimeout(stall);
    clearTimeout(total);
    try {
      await cursor.close();
    } finally {
      giveBack();
    }
  };
  const cutFor = (reason: DownloadCut) => () => {
    if (outcome !== "reading") return;
    countDownloadCut(reason);
    logger().warn(
      { caller: requester.caller, account: requester.account, reason, rows, seconds: Math.round((Date.now() - started) / 100) / 10 },
      reason === "stalled" ? "report download cut: its client took nothing for too long" : "report download cut: it ran past its time limit",
    );
    void end(reason);
  };
  const armStall = () => {
    stall = setTimeout(cutFor("stalled"), timeouts.stallMs);
    stall.unref();
  };
  const total = setTimeout(cutFor("too_long"), timeouts.totalMs);
  total.unref();
  armStall();
  // A connection that failed between two batches ends the download now, and its place here with it.
  void cursor.ended.then((how) => (how === "failed" ? end("lost") : undefined));

  /** The error a reader gets from a download that did not end well: never a short file that looks whole. */
  const failure = () => {
    if (outcome === "stalled") return new TallyError("unavailable", "the download was cut: its client took nothing for too long");
    if (outcome === "too_long") return new TallyError("unavailable", "the download was cut: it ran past its time limit");
    if (outcome === "lost") return new TallyError("unavailable", "the download lost its database connection");
    if (outcome === "failed") return new TallyError("internal", "the download failed");
    return null;
  };

  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<Row[]>> {
      clearTimeout(stall);
      const before = failure();
      if (before) throw before;
      if (outcome !== "reading") return { done: true, value: undefined };
      try {
        const next = await cursor.batches.next();
        const meanwhile = failure();
        if (meanwhile) throw meanwhile;
        if (next.done) {
          await end("done");
          return { done: true, value: undefined };
        }
        rows += next.value.length;
        armStall();
        return { done: false, value: next.value };
      } catch (error) {
        const known = failure();
        if (known) throw known;
        await end("failed");
        throw error;
      }
    },
    async return(): Promise<IteratorResult<Row[]>> {
      await end("returned");
      return { done: true, value: undefined };
    },
  };
}
