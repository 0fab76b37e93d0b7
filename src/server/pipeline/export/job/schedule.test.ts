import { describe, expect, it } from "vitest";
import {
  backfillDays,
  backoffMs,
  filesFor,
  initialWatermark,
  isResumable,
  MAX_ROWS_PER_BATCH,
  nextAggregateDate,
  nextAggregateDay,
  nextRange,
  ROWS_PER_FILE,
  retryAt,
  startsInBudget,
} from "./schedule";

const at = (iso: string) => new Date(iso);
const MINUTE = 60_000;

describe("where a new destination starts", () => {
  it("takes events from the start of the UTC day it was created, and aggregates from the local day before", () => {
    const created = at("2026-11-10T23:30:00+01:00"); // 22:30 UTC on the 10th
    expect(initialWatermark(created)).toEqual(at("2026-11-10T00:00:00Z"));
    expect(nextAggregateDate(null, created, "UTC")).toBe("2026-11-09");
    // 19:30 on the 10th in São Paulo, 07:30 on the 11th in Auckland.
    expect(nextAggregateDate(null, created, "America/Sao_Paulo")).toBe("2026-11-09");
    expect(nextAggregateDate(null, created, "Pacific/Auckland")).toBe("2026-11-10");
  });
});

describe("an events batch", () => {
  const watermark = at("2026-11-10T10:00:00Z");

  it("is due once it spans an hour up to 5 minutes ago, and then covers everything up to 5 minutes ago", () => {
    expect(nextRange(watermark, at("2026-11-10T11:04:59.999Z"), false)).toBeNull();
    expect(nextRange(watermark, at("2026-11-10T11:05:00Z"), false)).toEqual({ start: watermark, end: at("2026-11-10T11:00:00Z") });
    expect(nextRange(watermark, at("2026-11-10T13:47:00Z"), false)).toEqual({ start: watermark, end: at("2026-11-10T13:42:00Z") });
  });

  it("covers a day at most, so a backlog is caught up in bounded batches", () => {
    expect(nextRange(watermark, at("2026-11-14T08:00:00Z"), false)).toEqual({ start: watermark, end: at("2026-11-11T10:00:00Z") });
  });

  it("is due at once when run now, however short, but never reaches into the last 5 minutes", () => {
    const now = at("2026-11-10T10:05:00.002Z");
    expect(nextRange(watermark, now, true)).toEqual({ start: watermark, end: at("2026-11-10T10:00:00.002Z") });
    expect(nextRange(watermark, at("2026-11-10T10:05:00Z"), true)).toBeNull();
    expect(nextRange(watermark, at("2026-11-10T10:02:00Z"), true)).toBeNull();
  });
});

describe("an aggregates batch", () => {
  const watermark = { at: at("2026-11-10T00:00:00Z"), zone: "UTC" };
  const created = at("2026-01-01T00:00:00Z");
  const day = (start: string, end: string, date: string, zone = "UTC") => ({ day: date, zone, start: at(start), end: at(end) });

  it("is the whole next day, due from 03:00 UTC the day after it", () => {
    expect(nextAggregateDay(watermark, created, "UTC", at("2026-11-11T02:59:59.999Z"), false)).toBeNull();
    expect(nextAggregateDay(watermark, created, "UTC", at("2026-11-11T03:00:00Z"), false)).toEqual(
      day("2026-11-10T00:00:00Z", "2026-11-11T00:00:00Z", "2026-11-10"),
    );
    // Days are delivered one batch each, however late the call.
    expect(nextAggregateDay(watermark, created, "UTC", at("2026-11-20T12:00:00Z"), false)?.day).toBe("2026-11-10");
  });

  it("is due as soon as the day is complete when run now, never before", () => {
    expect(nextAggregateDay(watermark, created, "UTC", at("2026-11-10T23:59:59.999Z"), true)).toBeNull();
    expect(nextAggregateDay(watermark, created, "UTC", at("2026-11-11T00:00:00Z"), true)?.day).toBe("2026-11-10");
  });

  it("waits for the whole day to be settled, even when its time has come", () => {
    const now = at("2026-11-11T05:00:00Z");
    expect(nextAggregateDay(watermark, created, "UTC", now, false, at("2026-11-10T23:59:59.999Z"))).toBeNull();
    expect(nextAggregateDay(watermark, created, "UTC", now, false, at("2026-11-11T00:00:00Z"))?.day).toBe("2026-11-10");
  });

  it("is a local day of the account's zone, due at 03:00 local the day after", () => {
    const saoPaulo = { at: at("2026-11-10T03:00:00Z"), zone: "America/Sao_Paulo" };
    // 02:59:59.999 on the 11th in São Paulo (UTC−3), then 03:00.
    expect(nextAggregateDay(saoPaulo, created, "America/Sao_Paulo", at("2026-11-11T05:59:59.999Z"), false)).toBeNull();
    expect(nextAggregateDay(saoPaulo, created, "America/Sao_Paulo", at("2026-11-11T06:00:00Z"), false)).toEqual(
      day("2026-11-10T03:00:00Z", "2026-11-11T03:00:00Z", "2026-11-10", "America/Sao_Paulo"),
    );
    // Kathmandu (UTC+5:45): the day ends at 18:15 UTC, due at 21:15 UTC.
    const kathmandu = { at: at("2026-11-09T18:15:00Z"), zone: "Asia/Kathmandu" };
    expect(nextAggregateDay(kathmandu, created, "Asia/Kathmandu", at("2026-11-10T21:14:59.999Z"), false)).toBeNull();
    expect(nextAggregateDay(kathmandu, created, "Asia/Kathmandu", at("2026-11-10T21:15:00Z"), false)?.end).toEqual(at("2026-11-10T18:15:00Z"));
  });

  it("spans 23 or 25 hours across a daylight-saving change, due 3 hours after its end", () => {
    // New York falls back on 2026-11-01: that day is 25 hours long.
    const newYork = { at: at("2026-11-01T04:00:00Z"), zone: "America/New_York" };
    const next = nextAggregateDay(newYork, created, "America/New_York", at("2026-11-02T08:00:00Z"), false);
    expect(next).toEqual(day("2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z", "2026-11-01", "America/New_York"));
    expect(nextAggregateDay(newYork, created, "America/New_York", at("2026-11-02T07:59:59.999Z"), false)).toBeNull();
  });

  it("after the account's zone changed, is the next date in the new zone: none delivered twice, none skipped", () => {
    const late = at("2026-12-01T00:00:00Z");
    // UTC's 10th delivered, now in São Paulo: São Paulo's 11th (whose start is after the watermark).
    expect(nextAggregateDay({ at: at("2026-11-11T00:00:00Z"), zone: "UTC" }, created, "America/Sao_Paulo", late, false)).toEqual(
      day("2026-11-11T03:00:00Z", "2026-11-12T03:00:00Z", "2026-11-11", "America/Sao_Paulo"),
    );
    // São Paulo's 10th delivered, now in UTC: UTC's 11th (which began 3 hours before the watermark).
    expect(nextAggregateDay({ at: at("2026-11-11T03:00:00Z"), zone: "America/Sao_Paulo" }, created, "UTC", late, false)).toEqual(
      day("2026-11-11T00:00:00Z", "2026-11-12T00:00:00Z", "2026-11-11"),
    );
    // Even across the date line: Pago Pago's 10th delivered (UTC−11), now in Kiritimati (UTC+14).
    expect(nextAggregateDay({ at: at("2026-11-11T11:00:00Z"), zone: "Pacific/Pago_Pago" }, created, "Pacific/Kiritimati", late, false)?.day).toBe("2026-11-11");
  });
});

describe("after a failure", () => {
  it("waits 1, 2, 4, ... minutes, at most an hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20].map((attempt) => backoffMs(attempt) / MINUTE)).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
    const failedAt = at("2026-11-10T10:00:00Z");
    expect(retryAt(3, failedAt, { needsAttention: false, backfill: false })).toEqual(at("2026-11-10T10:04:00Z"));
  });

  it("is not retried on a timer when a person must act, or when the run was a backfill", () => {
    const failedAt = at("2026-11-10T10:00:00Z");
    expect(retryAt(1, failedAt, { needsAttention: true, backfill: false })).toBeNull();
    expect(retryAt(1, failedAt, { needsAttention: false, backfill: true })).toBeNull();
  });

  it("takes a run up again once its back-off has passed, and a run left running by a worker that died at once", () => {
    const now = at("2026-11-10T10:00:00Z");
    expect(isResumable({ status: "failed", nextAttemptAt: at("2026-11-10T10:00:00.001Z") }, now)).toBe(false);
    expect(isResumable({ status: "failed", nextAttemptAt: now }, now)).toBe(true);
    expect(isResumable({ status: "running", nextAttemptAt: null }, now)).toBe(true);
    // Failed waiting for a person: its destination is not active until someone updates it, and then it goes again.
    expect(isResumable({ status: "failed", nextAttemptAt: null }, now)).toBe(true);
  });
});

describe("rows per batch and per file", () => {
  it("splits files at the rows per file: no file for an empty events batch, always one for a day's aggregates", () => {
    expect(filesFor("ad_events", 0)).toBe(0);
    expect(filesFor("ad_events", ROWS_PER_FILE)).toBe(1);
    expect(filesFor("ad_events", ROWS_PER_FILE + 1)).toBe(2);
    expect(filesFor("ad_events", MAX_ROWS_PER_BATCH)).toBe(MAX_ROWS_PER_BATCH / ROWS_PER_FILE);
    expect(filesFor("orders", 5, 2)).toBe(3);
    expect(filesFor("campaigns", 0)).toBe(1);
    expect(filesFor("campaigns", 3, 2)).toBe(2);
  });
});

describe("a call's budget", () => {
  it("starts a batch only if one as long as the longest so far, and 30 s more, still fits", () => {
    expect(startsInBudget(0, 0, Number.POSITIVE_INFINITY)).toBe(true);
    expect(startsInBudget(0, 0, 30_000)).toBe(true);
    expect(startsInBudget(1, 0, 30_000)).toBe(false);
    expect(startsInBudget(100_000, 60_000, 190_000)).toBe(true);
    expect(startsInBudget(100_001, 60_000, 190_000)).toBe(false);
  });
});

describe("a backfill", () => {
  it("covers every day from the first to the last, both included", () => {
    expect(backfillDays("2026-10-30", "2026-11-02")).toEqual(["2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02"]);
    expect(backfillDays("2026-11-02", "2026-11-02")).toHaveLength(1);
    expect(backfillDays("2026-11-03", "2026-11-02")).toEqual([]);
  });
});
