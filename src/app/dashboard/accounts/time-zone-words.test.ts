import { describe, expect, it } from "vitest";
import { savedZoneInWords, zoneWithOffset } from "./time-zone-words";

const now = new Date("2026-12-02T13:05:00Z");

describe("an account's time zone in words", () => {
  it("names the zone with its offset at the moment, half and quarter hours and daylight saving included", () => {
    expect(zoneWithOffset("America/Sao_Paulo", now)).toBe("America/Sao_Paulo, UTC−03:00");
    expect(zoneWithOffset("Asia/Kathmandu", now)).toBe("Asia/Kathmandu, UTC+05:45");
    expect(zoneWithOffset("UTC", now)).toBe("UTC, UTC+00:00");
    expect(zoneWithOffset("Europe/Berlin", new Date("2026-07-01T00:00:00Z"))).toBe("Europe/Berlin, UTC+02:00");
    expect(zoneWithOffset("Nowhere/Land", now)).toBe("Nowhere/Land");
  });

  it("says from when a saved zone's days are kept, and that the days before stay UTC days", () => {
    expect(savedZoneInWords({ timeZone: "America/Sao_Paulo", changed: true, since: new Date("2026-12-03T00:00:00Z") }, now)).toBe(
      "Saved: reports count days in America/Sao_Paulo from 2026-12-03 00:00 UTC on; days before then stay UTC days until they are filled in.",
    );
    expect(savedZoneInWords({ timeZone: "Europe/Berlin", changed: true, since: new Date("2026-09-01T00:00:00Z") }, now)).toBe(
      "Saved: reports count days in Europe/Berlin from 2026-09-01 on; days before then stay UTC days until they are filled in.",
    );
    expect(savedZoneInWords({ timeZone: "UTC", changed: true, since: new Date(0) }, now)).toBe(
      "Saved: reports, daily budgets and the daily export count UTC days.",
    );
    expect(savedZoneInWords({ timeZone: "Europe/Berlin", changed: false, since: new Date(0) }, now)).toBe(
      "Europe/Berlin was already this account's time zone.",
    );
  });
});
