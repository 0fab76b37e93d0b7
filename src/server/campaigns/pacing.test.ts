import { describe, expect, it } from "vitest";
import { advertiserPacingOf, campaignPacingOf } from "./pacing";
import type { PacingRow } from "./pacing.sql";

const row = (overrides: Partial<PacingRow> = {}): PacingRow => ({
  campaign_id: "cmp_1",
  advertiser_id: "adv_1",
  status: "active",
  bid_model: "cpc",
  bid_micros: 1_200_000n,
  daily_budget_micros: 10_000_000n,
  spent_today_micros: 2_500_000n,
  has_active_ads: true,
  currency: "EUR",
  wallet_balance_micros: 70_000_000n,
  advertiser_daily_budget_micros: null,
  advertiser_spent_today_micros: 2_500_000n,
  advertiser_last_days: [0, 0, 0, 0, 0, 0, 14_000_000].map((spend, i) => [`2026-11-2${i}`, String(spend)]),
  ...overrides,
});

describe("campaignPacingOf", () => {
  it("gives the share of the budget spent, serving while below it", () => {
    expect(campaignPacingOf(row(), "2026-11-28")).toMatchObject({
      bid: 1.2,
      dailyBudget: 10,
      spentToday: 2.5,
      shareSpent: 0.25,
      outOfBudgetToday: false,
      stoppedBy: null,
    });
  });

  it("names what stopped serving in capping's order: the campaign's budget, the advertiser's, then the wallet", () => {
    const broke = { wallet_balance_micros: 0n, advertiser_daily_budget_micros: 2_000_000n };
    expect(campaignPacingOf(row({ ...broke, spent_today_micros: 10_300_000n }), "d")).toMatchObject({ stoppedBy: "campaign_budget", shareSpent: 1.03 });
    expect(campaignPacingOf(row(broke), "d").stoppedBy).toBe("advertiser_budget");
    expect(campaignPacingOf(row({ wallet_balance_micros: -1n }), "d")).toMatchObject({ stoppedBy: "wallet", outOfBudgetToday: true });
    expect(campaignPacingOf(row({ daily_budget_micros: null }), "d")).toMatchObject({ shareSpent: null, outOfBudgetToday: false });
  });

  it("flags an active campaign without an active ad only", () => {
    expect(campaignPacingOf(row({ has_active_ads: false }), "d").activeWithoutActiveAds).toBe(true);
    expect(campaignPacingOf(row({ has_active_ads: false, status: "paused" }), "d").activeWithoutActiveAds).toBe(false);
  });
});

describe("advertiserPacingOf", () => {
  it("divides the balance by the average of the 7 days, no days left once empty, none known without spend", () => {
    // 14.00 over 7 days is 2.00 a day; 70.00 lasts 35 days.
    expect(advertiserPacingOf(row())).toMatchObject({ walletBalance: 70, averageDailySpend: 2, daysLeft: 35, walletEmpty: false });
    expect(advertiserPacingOf(row({ wallet_balance_micros: -500_000n }))).toMatchObject({ daysLeft: 0, walletEmpty: true });
    const idle = row({ advertiser_last_days: row().advertiser_last_days.map(([day]) => [day, "0"]) });
    expect(advertiserPacingOf(idle)).toMatchObject({ averageDailySpend: 0, daysLeft: null });
  });
});
