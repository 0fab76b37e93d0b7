import { describe, expect, it } from "vitest";
import { budgetBelowBid } from "./budget-warning";

describe("a daily budget under one bid", () => {
  it("is warned about for CPC when the bid is above the budget, and for CPM when a thousandth of it is", () => {
    expect(budgetBelowBid({ bidModel: "cpc", bid: 2, dailyBudget: 1.5 })).toContain("less than one click's bid");
    expect(budgetBelowBid({ bidModel: "cpc", bid: 1.5, dailyBudget: 1.5 })).toBeNull();
    expect(budgetBelowBid({ bidModel: "cpm", bid: 30, dailyBudget: 0.02 })).toContain("less than one impression's cost");
    expect(budgetBelowBid({ bidModel: "cpm", bid: 30, dailyBudget: 0.03 })).toBeNull();
    expect(budgetBelowBid({ bidModel: "cpm", bid: 30, dailyBudget: 5 })).toBeNull();
  });

  it("says nothing without a budget or a bid to compare", () => {
    expect(budgetBelowBid({ bidModel: "cpc", bid: 2, dailyBudget: null })).toBeNull();
    expect(budgetBelowBid({ bidModel: "cpc", bid: 2, dailyBudget: undefined })).toBeNull();
    expect(budgetBelowBid({ bidModel: "cpc", bid: Number.NaN, dailyBudget: 1 })).toBeNull();
  });
});
