// Which failures of an export batch are its rows' (searched for and set aside) and which fail the run.
import { describe, expect, it } from "vitest";
import { isRowDataError } from "./poison";

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe("an export batch's failure", () => {
  it("is the rows' for a data error, and the run's for a kept zone Postgres no longer knows", () => {
    expect(isRowDataError(pgError("22021", "invalid byte sequence for encoding"))).toBe(true);
    expect(isRowDataError(new RangeError("Invalid time value"))).toBe(true);
    // Every row of the account's aggregates would fail alike: none is set aside, the run waits.
    expect(isRowDataError(pgError("22023", 'time zone "Nowhere/Atlantis" not recognized'))).toBe(false);
    expect(isRowDataError(pgError("08006", "connection failure"))).toBe(false);
  });
});
