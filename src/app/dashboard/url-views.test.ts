import { describe, expect, it } from "vitest";
import { columnsFromParam, lastDays, readRange, readZone, sortFromParam, sortToParam } from "./url-views";

const fallback = { startDate: "2026-10-30", endDate: "2026-11-28" };

describe("a view read from the address", () => {
  it("takes a range of real days in order, of at most 366 days, and the default when the address has none", () => {
    expect(readRange({ from: "2026-10-01", to: "2026-10-31" }, fallback)).toEqual({ range: { startDate: "2026-10-01", endDate: "2026-10-31" }, problem: null });
    expect(readRange({ from: "2025-01-01", to: "2026-01-01" }, fallback)).toEqual({ range: { startDate: "2025-01-01", endDate: "2026-01-01" }, problem: null });
    expect(readRange({ from: null, to: null }, fallback)).toEqual({ range: fallback, problem: null });
    expect(readRange({ from: "", to: "" }, fallback)).toEqual({ range: fallback, problem: null });
  });

  it("shows the default instead of a range out of bounds, saying what was asked and what is shown", () => {
    const shown = (from: string | null, to: string | null) => {
      const read = readRange({ from, to }, fallback);
      expect(read.range).toEqual(fallback);
      return read.problem;
    };
    const instead = "showing 2026-10-30 to 2026-11-28 instead.";
    expect(shown("2020-01-01", "2026-01-01")).toBe(
      `The range asked for, 2020-01-01 to 2026-01-01, spans 2,193 days, more than the 366 a view shows: ${instead}`,
    );
    expect(shown("2025-01-01", "2026-01-02")).toBe(`The range asked for, 2025-01-01 to 2026-01-02, spans 367 days, more than the 366 a view shows: ${instead}`);
    expect(shown("2026-10-31", "2026-10-01")).toBe(`The range asked for, 2026-10-31 to 2026-10-01, ends before it starts: ${instead}`);
    expect(shown("2026-02-30", "2026-03-01")).toBe(`The start day asked for, “2026-02-30”, is not a day (YYYY-MM-DD): ${instead}`);
    expect(shown("2026-03-01", "last week")).toBe(`The end day asked for, “last week”, is not a day (YYYY-MM-DD): ${instead}`);
    expect(shown("2026-03-01", null)).toBe(`The address gives a start day (“2026-03-01”) but no end day: ${instead}`);
    expect(shown(null, "2026-03-01")).toBe(`The address gives an end day (“2026-03-01”) but no start day: ${instead}`);
    // Whatever an edited address holds, only its beginning is quoted back.
    expect(shown("x".repeat(500), "2026-03-01")).toBe(`The start day asked for, “${"x".repeat(24)}…”, is not a day (YYYY-MM-DD): ${instead}`);
  });

  it("sorts by a field of the table, a leading minus for descending", () => {
    const fields = ["name", "clicks_total"];
    expect(sortFromParam("-clicks_total", fields, { id: "name", descending: false })).toEqual({ id: "clicks_total", descending: true });
    expect(sortFromParam("name", fields, { id: "clicks_total", descending: true })).toEqual({ id: "name", descending: false });
    expect(sortFromParam("-password", fields, { id: "name", descending: false })).toEqual({ id: "name", descending: false });
    expect(sortToParam({ id: "clicks_total", descending: true })).toBe("-clicks_total");
  });

  it("shows the known columns named, in the table's order, or the default when none is known", () => {
    const fields = ["a", "b", "c"];
    expect(columnsFromParam("c,a,zz", fields, ["a"])).toEqual(["a", "c"]);
    expect(columnsFromParam("zz", fields, ["a", "b"])).toEqual(["a", "b"]);
    expect(columnsFromParam(null, fields, ["b"])).toEqual(["b"]);
  });
});

describe("the days and the zone of a view", () => {
  it("ends the last days on today's local date, which begins at the zone's midnight", () => {
    // 02:30 UTC on 2 December is still 1 December in São Paulo and already 08:15 on the 2nd in Kathmandu.
    const now = Date.parse("2026-12-02T02:30:00Z");
    expect(lastDays(30, "America/Sao_Paulo", now)).toEqual({ startDate: "2026-11-02", endDate: "2026-12-01" });
    expect(lastDays(7, "Asia/Kathmandu", now)).toEqual({ startDate: "2026-11-26", endDate: "2026-12-02" });
    expect(lastDays(1, "UTC", now)).toEqual({ startDate: "2026-12-02", endDate: "2026-12-02" });
    // The first moment of the 2nd in São Paulo is 03:00 UTC.
    expect(lastDays(1, "America/Sao_Paulo", Date.parse("2026-12-02T02:59:59Z")).endDate).toBe("2026-12-01");
    expect(lastDays(1, "America/Sao_Paulo", Date.parse("2026-12-02T03:00:00Z")).endDate).toBe("2026-12-02");
  });

  it("takes the zone the address asks for when the reports keep it, canonical, else none", () => {
    const kept = ["UTC", "America/Sao_Paulo"];
    expect(readZone("America/Sao_Paulo", kept)).toBe("America/Sao_Paulo");
    expect(readZone("america/sao_paulo", kept)).toBe("America/Sao_Paulo");
    expect(readZone("utc", kept)).toBe("UTC");
    expect(readZone("Asia/Kathmandu", kept)).toBeNull();
    expect(readZone("Mars/Olympus", kept)).toBeNull();
    expect(readZone("", kept)).toBeNull();
    expect(readZone(null, kept)).toBeNull();
  });
});
