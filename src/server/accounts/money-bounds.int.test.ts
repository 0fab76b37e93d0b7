// The money staff and advertisers enter stays inside the ranges that keep every bigint of
// micro-units safe: a wallet's ceiling holds against concurrent top-ups, and the forms' schemas
// refuse larger budgets and balances.
import { describe, expect, it } from "vitest";
import { ZCampaignSettings } from "@/server/campaigns/campaign-input";
import { MAX_BID, MAX_DAILY_BUDGET, MAX_WALLET_BALANCE } from "@/server/core/money";
import { db } from "@/server/db/client";
import { makeAdvertiser } from "@/testing/fixtures";
import { ZCreateAccountInput, ZDailyBudgetInput, ZTopUpInput } from "./account-input";
import { OPERATOR } from "./actor";
import { topUpWallet } from "./manage-account";

describe("wallet ceiling", () => {
  it(`tops a wallet up to ${MAX_WALLET_BALANCE.toLocaleString("en")} and refuses any top-up past it, changing nothing`, async () => {
    const advertiser = await makeAdvertiser({ wallet: MAX_WALLET_BALANCE - 15_000_000 });
    expect(await topUpWallet({ actor: OPERATOR, accountId: advertiser.id, amount: 10_000_000 })).toBe(MAX_WALLET_BALANCE - 5_000_000);
    await expect(topUpWallet({ actor: OPERATOR, accountId: advertiser.id, amount: 5_000_000.01 })).rejects.toMatchObject({
      code: "bad_request",
      message: expect.stringMatching(/at most 1,000,000,000/),
    });
    expect(await topUpWallet({ actor: OPERATOR, accountId: advertiser.id, amount: 5_000_000 })).toBe(MAX_WALLET_BALANCE);
    // Concurrent top-ups cannot pass it together either: each is one conditional statement.
    const low = await makeAdvertiser({ wallet: MAX_WALLET_BALANCE - 25_000_000 });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => topUpWallet({ actor: OPERATOR, accountId: low.id, amount: 10_000_000 })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
    const { walletBalanceMicros } = await db.account.findUniqueOrThrow({ where: { id: low.id } });
    expect(walletBalanceMicros).toBe(BigInt(MAX_WALLET_BALANCE - 5_000_000) * 1_000_000n);
  });

  it("refuses balances, budgets and bids past their ranges in the forms' schemas", () => {
    expect(ZCreateAccountInput.safeParse({ kind: "advertiser", name: "A", walletBalance: MAX_WALLET_BALANCE + 1 }).success).toBe(false);
    expect(ZCreateAccountInput.safeParse({ kind: "advertiser", name: "A", dailyBudget: MAX_DAILY_BUDGET + 1 }).success).toBe(false);
    expect(ZCreateAccountInput.safeParse({ kind: "advertiser", name: "A", walletBalance: MAX_WALLET_BALANCE, dailyBudget: MAX_DAILY_BUDGET }).success).toBe(
      true,
    );
    expect(ZDailyBudgetInput.safeParse({ accountId: "a", dailyBudget: 1e300 }).success).toBe(false);
    expect(ZTopUpInput.safeParse({ accountId: "a", amount: Number.POSITIVE_INFINITY }).success).toBe(false);
    const campaign = { name: "C", type: "display", startDate: "2026-12-01", bidModel: "cpc", publisherIds: ["p"] };
    expect(ZCampaignSettings.safeParse({ ...campaign, bid: MAX_BID }).success).toBe(true);
    expect(ZCampaignSettings.safeParse({ ...campaign, bid: MAX_BID + 0.01 }).success).toBe(false);
    expect(ZCampaignSettings.safeParse({ ...campaign, bid: 1, dailyBudget: MAX_DAILY_BUDGET * 2 }).success).toBe(false);
  });
});
