import { describe, expect, it } from "vitest";
import { dashboardAddress, ZSaveViewInput } from "./saved-view-input";

describe("dashboardAddress", () => {
  it("keeps a dashboard address's path and query, and drops its fragment", () => {
    expect(dashboardAddress("/dashboard")).toBe("/dashboard");
    expect(dashboardAddress("/dashboard/campaigns?from=2026-11-01&to=2026-11-28&sort=-clicks_total")).toBe(
      "/dashboard/campaigns?from=2026-11-01&to=2026-11-28&sort=-clicks_total",
    );
    expect(dashboardAddress("/dashboard?account=acc_1#figures")).toBe("/dashboard?account=acc_1");
  });

  it("refuses whatever could lead out of the dashboard", () => {
    for (const address of [
      "https://elsewhere.example/dashboard",
      "//elsewhere.example/dashboard",
      "/dashboardx",
      "/dashboard\\..\\api",
      "/dashboard/../api/metrics",
      "/dashboard/%2e%2e/api",
      "/api/trpc",
      "javascript:alert(1)",
      "/dashboard\n/x",
      "",
    ]) {
      expect(dashboardAddress(address), address).toBeNull();
    }
  });
});

describe("ZSaveViewInput", () => {
  it("trims the name and names what is wrong", () => {
    expect(ZSaveViewInput.parse({ name: "  Acme, last 30 days ", path: "/dashboard" })).toEqual({ name: "Acme, last 30 days", path: "/dashboard" });
    const messages = (input: unknown) => (ZSaveViewInput.safeParse(input).error?.issues ?? []).map((i) => `${String(i.path[0])} ${i.message}`);
    expect(messages({ name: " ", path: "/dashboard" })).toEqual(["name is required"]);
    expect(messages({ name: "x".repeat(81), path: "/dashboard" })).toEqual(["name is at most 80 characters"]);
    expect(messages({ name: "tab\there", path: "/dashboard" })).toEqual(["name may not hold control characters or backslashes"]);
    expect(messages({ name: "ok", path: "https://elsewhere.example/" })).toEqual(["path must be an address in the dashboard"]);
    expect(messages({ name: "ok", path: `/dashboard?x=${"a".repeat(2000)}` })).toEqual(["path is at most 2000 characters"]);
    // The limit holds for the address kept, which percent-encodes what came unencoded.
    expect(messages({ name: "ok", path: `/dashboard?x=${"é".repeat(600)}` })).toEqual(["path is at most 2000 characters"]);
    expect(ZSaveViewInput.parse({ name: "ok", path: `/dashboard?x=${"é".repeat(300)}` }).path).toHaveLength("/dashboard?x=".length + 300 * 6);
  });
});
