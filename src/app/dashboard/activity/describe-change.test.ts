import { describe, expect, it } from "vitest";
import { describeAction, describeChange, fieldLabel } from "./describe-change";

describe("an activity entry in words", () => {
  it("shows each changed field before → after, money with two decimals and its currency", () => {
    expect(describeChange({ bid: 1.5, dailyBudget: 50 }, { bid: 2, dailyBudget: 80 }, "EUR")).toEqual([
      "Bid (EUR): 1.50 → 2.00",
      "Daily budget (EUR): 50.00 → 80.00",
    ]);
    expect(describeChange({ dailyBudget: null }, { dailyBudget: 1234.5 }, "USD")).toEqual(["Daily budget (USD): — → 1,234.50"]);
  });

  it("lists, flags and statuses read as words; a made thing shows its values, a removed one says so", () => {
    expect(describeChange({ publisherIds: ["pub_a"], creditUnverified: false }, { publisherIds: ["pub_a", "pub_b"], creditUnverified: true }, "USD")).toEqual([
      "Publishers: pub_a → pub_a, pub_b",
      "Credit orders without proof: no → yes",
    ]);
    expect(describeChange(null, { name: "Warehouse", scopes: [] }, "USD")).toEqual(["Name: Warehouse", "Scopes: none"]);
    expect(describeChange({ advertiserId: "adv_1" }, null, "USD")).toEqual(["Brand: adv_1 (removed)"]);
  });

  it("shows fields in the forms' order, whatever order the stored JSON keeps", () => {
    expect(describeChange(null, { bid: 0.35, zeta: 1, name: "Spring", dailyBudget: 5, type: "product" }, "USD")).toEqual([
      "Name: Spring",
      "Type: product",
      "Bid (USD): 0.35",
      "Daily budget (USD): 5.00",
      "Zeta: 1",
    ]);
  });

  it("names known actions and fields, and keeps an unknown action's dotted name", () => {
    expect(describeAction("campaign.updated")).toBe("Campaign changed");
    expect(describeAction("wallet.frozen")).toBe("wallet.frozen");
    expect(fieldLabel("writeSuccessMarker")).toBe("Success marker");
    expect(fieldLabel("someNewField")).toBe("Some new field");
  });
});
