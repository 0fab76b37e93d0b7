import { describe, expect, it } from "vitest";
import { describeAction, describeChange, fieldLabel } from "./describe-change";

describe("an activity entry in words", () => {
  it("shows each changed field before → after, money as every screen writes it, with its currency", () => {
    expect(describeChange({ bid: 1.5, dailyBudget: 50 }, { bid: 2, dailyBudget: 80 }, "EUR")).toEqual([
      "Bid: EUR 1.50 → EUR 2.00",
      "Daily budget: EUR 50.00 → EUR 80.00",
    ]);
    expect(describeChange({ dailyBudget: null }, { dailyBudget: 1234.5 }, "USD")).toEqual(["Daily budget: — → USD 1,234.50"]);
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
      "Bid: USD 0.35",
      "Daily budget: USD 5.00",
      "Zeta: 1",
    ]);
  });

  it("names known actions and fields, and keeps an unknown action's dotted name", () => {
    expect(describeAction("campaign.updated")).toBe("Campaign changed");
    expect(describeAction("wallet.frozen")).toBe("wallet.frozen");
    expect(fieldLabel("writeSuccessMarker")).toBe("Success marker");
    expect(fieldLabel("someNewField")).toBe("Some new field");
  });

  it("reads ids as the names the server sent beside them, and moments as minutes in UTC, never raw ids or ISO", () => {
    const names = { pub_demo_market: "Demo Market", prd_9f2: "Beans 1 kg", adv_acme: "Acme Coffee" };
    expect(describeChange({ publisherIds: ["pub_demo_market"] }, { publisherIds: ["pub_demo_market", "pub_gone"] }, "USD", names)).toEqual([
      "Publishers: Demo Market → Demo Market, pub_gone",
    ]);
    expect(describeChange(null, { productRefs: ["prd_9f2", "ACME-BEANS-1KG"], advertiserId: "adv_acme" }, "USD", names)).toEqual([
      "Products: Beans 1 kg, ACME-BEANS-1KG",
      "Brand: Acme Coffee",
    ]);
    expect(describeChange({ revokedAt: null }, { revokedAt: "2026-11-27T15:04:59.123Z" }, "USD")).toEqual(["Revoked: — → 2026-11-27 15:04 UTC"]);
    expect(describeChange(null, { previousSecret: "verifies until 2026-11-30T09:00:00.000Z" }, "USD")).toEqual([
      "Previous secret: verifies until 2026-11-30 09:00 UTC",
    ]);
    expect(describeChange(null, { role: "viewer", expiresAt: "2026-12-04T15:04:00Z", email: "bo@x.com" }, "USD")).toEqual([
      "E-mail: bo@x.com",
      "Role: viewer",
      "Expires: 2026-12-04 15:04 UTC",
    ]);
  });

  it("reads moments inside values in the screen's zone, lists' items too", () => {
    expect(describeChange({ revokedAt: null }, { revokedAt: "2026-11-27T15:04:59.123Z" }, "USD", {}, "America/Sao_Paulo")).toEqual([
      "Revoked: — → 2026-11-27 12:04 UTC−03:00",
    ]);
    expect(describeChange(null, { previousSecret: "verifies until 2026-11-30T20:00:00.000Z" }, "USD", {}, "Asia/Kathmandu")).toEqual([
      "Previous secret: verifies until 2026-12-01 01:45 UTC+05:45",
    ]);
    expect(describeChange(null, { windows: ["2026-11-27T02:00Z", "2026-11-27T12:00Z"] }, "USD", {}, "America/Sao_Paulo")).toEqual([
      "Windows: 2026-11-26 23:00 UTC−03:00, 2026-11-27 09:00 UTC−03:00",
    ]);
  });
});
