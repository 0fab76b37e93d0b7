import { describe, expect, it } from "vitest";
import { loggedBeacon } from "@/testing/logged-beacon";
import { storedBeaconBytes } from "./beacon-bytes";

describe("storedBeaconBytes", () => {
  it("counts the search term and category as it counts the other text claims, nothing for nulls", () => {
    const without = loggedBeacon();
    const withTerms = { ...without, claims: { ...without.claims, searchTerm: "acucar organico", category: "mercearia > doces" } };
    expect(storedBeaconBytes(withTerms) - storedBeaconBytes(without)).toBe("acucar organico".length + "mercearia > doces".length);
    expect(storedBeaconBytes({ ...without, claims: { ...without.claims, placementName: "" } })).toBe(storedBeaconBytes(without) - "home".length);
  });
});
