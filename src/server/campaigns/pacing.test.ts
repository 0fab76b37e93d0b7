// Pacing's figures from one row, without a database: the budget's share, what stopped serving, the
// wallet's days left, and where "now" is in the advertiser's local day. Expected values are
// worked out from the zones' rules (offsets and DST changes), not from the code.
import { describe, expect, it } from "vitest";
import { advertiserPacingOf, campaignPacingOf, localDayAt } from "./pacing";
import type { PacingRow } from "./pacing.sql";

const NOW = new Date("2026-11-28T12:00:00Z");

const row = (overrides: Partial<PacingRow> = {}): PacingRow => ({
  campaign_id: "cmp_1",
  advertiser_id: "adv_1",
  status: "active",
  bid_model: "cpc",
  bid_micros: 1_200_000n,
  daily_budget_micros: 10_000_000n,
  has_active_ads: true,
  currency: "EUR",
  time_zone: "UTC",
  wallet_balance_micros: 70_000_000n,
  advertiser_daily_budget_micros: null,
  campaign_spent: { "2026-11-28": "2500000" },
  advertiser_spent: { "2026-11-28": "2500000", "2026-11-27": "14000000" },
  ...overrides,
});

describe("campaignPacingOf", () => {
  it("gives the share of the budget spent, serving while below it", () => {
    expect(campaignPacingOf(row(), NOW)).toMatchObject({
      bid: 1.2,
      dailyBudget: 10,
      day: "2026-11-28",
      timeZone: "UTC",
      dayElapsed: 0.5,
      resetsAt: "2026-11-29T00:00:00.000Z",
      resetTime: "00:00",
      spentToday: 2.5,
      shareSpent: 0.25,
      outOfBudgetToday: false,
      stoppedBy: null,
    });
  });

  it("names what stopped serving in capping's order: the campaign's budget, the advertiser's, then the wallet", () => {
    const broke = { wallet_balance_micros: 0n, advertiser_daily_budget_micros: 2_000_000n };
    expect(campaignPacingOf(row({ ...broke, campaign_spent: { "2026-11-28": "10300000" } }), NOW)).toMatchObject({
      stoppedBy: "campaign_budget",
      shareSpent: 1.03,
    });
    expect(campaignPacingOf(row(broke), NOW).stoppedBy).toBe("advertiser_budget");
    expect(campaignPacingOf(row({ wallet_balance_micros: -1n }), NOW)).toMatchObject({ stoppedBy: "wallet", outOfBudgetToday: true });
    expect(campaignPacingOf(row({ daily_budget_micros: null }), NOW)).toMatchObject({ shareSpent: null, outOfBudgetToday: false });
  });

  it("flags an active campaign without an active ad only", () => {
    expect(campaignPacingOf(row({ has_active_ads: false }), NOW).activeWithoutActiveAds).toBe(true);
    expect(campaignPacingOf(row({ has_active_ads: false, status: "paused" }), NOW).activeWithoutActiveAds).toBe(false);
  });

  it("reads today as the advertiser's local date: at 02:59 UTC São Paulo (UTC−3) is still on the day before, capped until 03:00 UTC", () => {
    const spentOut = row({ time_zone: "America/Sao_Paulo", campaign_spent: { "2026-11-27": "10000000" } });
    expect(campaignPacingOf(spentOut, new Date("2026-11-28T02:59:00Z"))).toMatchObject({
      day: "2026-11-27",
      spentToday: 10,
      outOfBudgetToday: true,
      stoppedBy: "campaign_budget",
      resetsAt: "2026-11-28T03:00:00.000Z",
      resetTime: "00:00",
    });
    expect(campaignPacingOf(spentOut, new Date("2026-11-28T03:00:00Z"))).toMatchObject({
      day: "2026-11-28",
      spentToday: 0,
      outOfBudgetToday: false,
      dayElapsed: 0,
    });
  });
});

describe("where now is in the advertiser's local day", () => {
  it("New York on 8 March 2026 (23 hours, 02:00 to 03:00 skipped): at 11:30 local 10.5 of 23 hours have passed", () => {
    // Midnight EST is 05:00 UTC; 11:30 EDT is 15:30 UTC: 10.5 hours later.
    const at = localDayAt(new Date("2026-03-08T15:30:00Z"), "America/New_York");
    expect(at.day).toBe("2026-03-08");
    expect(at.elapsed).toBeCloseTo(10.5 / 23, 12);
    // The next midnight is EDT's: 04:00 UTC.
    expect(at.resetsAt.toISOString()).toBe("2026-03-09T04:00:00.000Z");
  });

  it("New York on 1 November 2026 (25 hours, 01:00 to 02:00 twice): at 12:00 local 13 of 25 hours have passed", () => {
    // Midnight EDT is 04:00 UTC; noon EST is 17:00 UTC.
    const at = localDayAt(new Date("2026-11-01T17:00:00Z"), "America/New_York");
    expect(at.elapsed).toBeCloseTo(13 / 25, 12);
    expect(at.resetsAt.toISOString()).toBe("2026-11-02T05:00:00.000Z");
  });

  it("Kathmandu (UTC+5:45): the day begins at 18:15 UTC the day before", () => {
    expect(localDayAt(new Date("2026-11-27T18:14:59Z"), "Asia/Kathmandu")).toMatchObject({ day: "2026-11-27", resetTime: "00:00" });
    const midnight = localDayAt(new Date("2026-11-27T18:15:00Z"), "Asia/Kathmandu");
    expect(midnight).toMatchObject({ day: "2026-11-28", elapsed: 0 });
    expect(midnight.resetsAt.toISOString()).toBe("2026-11-28T18:15:00.000Z");
  });

  it("Lord Howe on 4 October 2026 (23.5 hours, 02:00 to 02:30 skipped): at 12:00 local 11.5 hours have passed", () => {
    // Midnight at +10:30 is 13:30 UTC the day before; noon at +11 is 01:00 UTC.
    expect(localDayAt(new Date("2026-10-04T01:00:00Z"), "Australia/Lord_Howe").elapsed).toBeCloseTo(11.5 / 23.5, 12);
  });

  it("Santiago on 5 September 2026: the next day begins at 01:00 local, its midnight skipped by DST", () => {
    const at = localDayAt(new Date("2026-09-05T20:00:00Z"), "America/Santiago");
    expect(at).toMatchObject({ day: "2026-09-05", resetTime: "01:00" });
    // 00:00 at −4 would be 04:00 UTC, the moment clocks go to 01:00 at −3.
    expect(at.resetsAt.toISOString()).toBe("2026-09-06T04:00:00.000Z");
  });
});

describe("advertiserPacingOf", () => {
  it("divides the balance by the average of the 7 days, no days left once empty, none known without spend", () => {
    // 14.00 over 7 days is 2.00 a day; 70.00 lasts 35 days.
    expect(advertiserPacingOf(row(), NOW)).toMatchObject({ walletBalance: 70, averageDailySpend: 2, daysLeft: 35, walletEmpty: false, spentToday: 2.5 });
    expect(advertiserPacingOf(row({ wallet_balance_micros: -500_000n }), NOW)).toMatchObject({ daysLeft: 0, walletEmpty: true });
    expect(advertiserPacingOf(row({ advertiser_spent: { "2026-11-28": "2500000" } }), NOW)).toMatchObject({ averageDailySpend: 0, daysLeft: null });
  });

  it("counts the 7 whole local days before the advertiser's today: in São Paulo at 02:00 UTC on 2 March, today is 1 March", () => {
    const spent = { "2026-03-01": "5000000", "2026-02-28": "7000000", "2026-02-22": "7000000", "2026-02-21": "100000000" };
    const wallet = advertiserPacingOf(row({ time_zone: "America/Sao_Paulo", advertiser_spent: spent }), new Date("2026-03-02T02:00:00Z"));
    expect(wallet).toMatchObject({ day: "2026-03-01", timeZone: "America/Sao_Paulo", spentToday: 5, averageDailySpend: 2, daysLeft: 35 });
    expect(wallet.lastDays.map((d) => d.day)).toEqual(["2026-02-22", "2026-02-23", "2026-02-24", "2026-02-25", "2026-02-26", "2026-02-27", "2026-02-28"]);
    expect(wallet.lastDays.map((d) => d.spend)).toEqual([7, 0, 0, 0, 0, 0, 7]);
  });
});
