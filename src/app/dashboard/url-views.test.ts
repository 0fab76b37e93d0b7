import { describe, expect, it } from "vitest";
import { columnsFromParam, rangeFromParams, sortFromParam, sortToParam } from "./url-views";

const fallback = { startDate: "2026-10-30", endDate: "2026-11-28" };

describe("a view read from the address", () => {
  it("takes a range of real days in order, else the default", () => {
    expect(rangeFromParams("2026-10-01", "2026-10-31", fallback)).toEqual({ startDate: "2026-10-01", endDate: "2026-10-31" });
    expect(rangeFromParams("2026-10-31", "2026-10-01", fallback)).toEqual(fallback);
    expect(rangeFromParams("2026-02-30", "2026-03-01", fallback)).toEqual(fallback);
    expect(rangeFromParams("2020-01-01", "2026-01-01", fallback)).toEqual(fallback);
    expect(rangeFromParams(null, "2026-03-01", fallback)).toEqual(fallback);
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
