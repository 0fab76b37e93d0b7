import { describe, expect, it } from "vitest";
import { failureReason, isDataError, isTransientFailure, isUnknownZoneError, storableText } from "./failures";

const pgError = (code: string, message = `error ${code}`) => Object.assign(new Error(message), { code });

describe("a failure's fault", () => {
  it("is the item's for data errors, statement timeouts, out of memory, program limits and any error of Tally's own code", () => {
    for (const code of ["22003", "22P05", "23505", "23502", "57014", "53200", "54000", "XX000"]) expect(isTransientFailure(pgError(code)), code).toBe(false);
    expect(isTransientFailure(new RangeError("Invalid string length"))).toBe(false);
    expect(isTransientFailure(new RangeError("Invalid time value"))).toBe(false);
    expect(isTransientFailure(new TypeError("Cannot read properties of null (reading 'placed_at')"))).toBe(false);
    expect(isTransientFailure(undefined)).toBe(false);
  });

  it("is the database's or the process's for lost connections, shutdowns, lock races, missing resources and a schema the code does not match", () => {
    for (const code of [
      "08006",
      "08003",
      "40001",
      "40P01",
      "53100",
      "53300",
      "57P01",
      "57P02",
      "57P03",
      "58030",
      "55P03",
      "55006",
      "25P03",
      "42703",
      "42P01",
      "0A000",
      "3D000",
    ]) {
      expect(isTransientFailure(pgError(code)), code).toBe(true);
    }
    for (const code of ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"])
      expect(isTransientFailure(Object.assign(new Error(code), { code })), code).toBe(true);
    expect(isTransientFailure(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isTransientFailure(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isTransientFailure(new Error("Client has encountered a connection error and is not queryable"))).toBe(true);
  });

  it("counts a kept zone Postgres does not know as the database's failure, not the item's", () => {
    // What Postgres 18 answers for AT TIME ZONE 'Nowhere/Atlantis' (store/unknown-zones.int.test.ts meets it for real).
    expect(isUnknownZoneError(pgError("22023", 'time zone "Nowhere/Atlantis" not recognized'))).toBe(true);
    expect(isTransientFailure(pgError("22023", 'time zone "Nowhere/Atlantis" not recognized'))).toBe(true);
    // Any other invalid parameter is still the item's.
    expect(isUnknownZoneError(pgError("22023", "invalid value for parameter"))).toBe(false);
    expect(isTransientFailure(pgError("22023", "invalid value for parameter"))).toBe(false);
    expect(isUnknownZoneError(new RangeError('time zone "X" not recognized'))).toBe(false);
  });

  it("counts only SQLSTATE classes 22 and 23 as data errors", () => {
    expect(isDataError(pgError("22003"))).toBe(true);
    expect(isDataError(pgError("23505"))).toBe(true);
    expect(isDataError(pgError("57014"))).toBe(false);
    expect(isDataError(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe(false);
    expect(isDataError(new RangeError("x"))).toBe(false);
  });

  it("gives a reason Postgres can store, whatever the message quotes", () => {
    expect(failureReason(pgError("22021", "invalid byte sequence"))).toBe("invalid byte sequence (SQLSTATE 22021)");
    expect(failureReason(new RangeError("Invalid time value"))).toBe("Invalid time value");
    const quoted = failureReason(new Error(`bad value "nul\u0000 and \ud800 lone"`));
    expect(quoted).not.toContain("\u0000");
    expect(/\p{Cs}/u.test(quoted)).toBe(false);
    expect(failureReason(new Error("x".repeat(2000))).length).toBe(500);
    // A cut through a surrogate pair leaves no half of it.
    expect(/\p{Cs}/u.test(storableText("a😀", 2))).toBe(false);
    expect(failureReason("a thrown string")).toBe("a thrown string");
  });
});
