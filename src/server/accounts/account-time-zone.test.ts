// How an account's zone is named and checked, before any database: canonical names stored, a bad
// name refused on the timeZone field with an example, the picker's choices with their offsets, and
// the two settings (TALLY_DEFAULT_TIME_ZONE, TALLY_REPORT_ZONES_MAX) checked at start.
import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/env";
import { TallyError } from "@/server/core/errors";
import { ZTimeZoneInput } from "./account-input";
import { accountZoneOf, timeZoneChoices } from "./account-time-zone";

const refusal = (name: string) => {
  try {
    accountZoneOf(name);
  } catch (error) {
    return error;
  }
  return null;
};

describe("an account's time zone, as named", () => {
  it("is stored by its canonical name, whatever the case or spaces it was typed with", () => {
    expect(accountZoneOf("America/Sao_Paulo")).toBe("America/Sao_Paulo");
    expect(accountZoneOf(" america/sao_paulo ")).toBe("America/Sao_Paulo");
    expect(accountZoneOf("utc")).toBe("UTC");
    expect(accountZoneOf("Etc/UTC")).toBe("UTC");
    // Older names of a zone (which Node's ICU still resolves to) are stored by the current one.
    expect(accountZoneOf("Asia/Katmandu")).toBe("Asia/Kathmandu");
    expect(accountZoneOf("asia/calcutta")).toBe("Asia/Kolkata");
    expect(accountZoneOf("Australia/Lord_Howe")).toBe("Australia/Lord_Howe");
  });

  it("refuses offsets, abbreviations and unknown places on the timeZone field, giving an example", () => {
    for (const name of ["+05:30", "EST", "Mars/Olympus_Mons", "", "America/Sao Paulo", "a".repeat(80)]) {
      const error = refusal(name);
      expect(error, name).toBeInstanceOf(TallyError);
      expect((error as TallyError).code).toBe("bad_request");
      expect((error as TallyError).details?.fieldErrors).toEqual({ timeZone: expect.stringContaining("such as America/Sao_Paulo") });
    }
  });

  it("is required and short in the form's input", () => {
    expect(ZTimeZoneInput.safeParse({ accountId: "adv_1", timeZone: " " }).success).toBe(false);
    expect(ZTimeZoneInput.safeParse({ accountId: "adv_1", timeZone: "x".repeat(65) }).success).toBe(false);
    expect(ZTimeZoneInput.parse({ accountId: "adv_1", timeZone: " Europe/Berlin " }).timeZone).toBe("Europe/Berlin");
  });
});

describe("the zones a picker offers", () => {
  it("lists UTC first, then every canonical zone once, each with its offset at the moment asked", () => {
    const winter = timeZoneChoices(new Date("2026-01-15T12:00:00Z"));
    const summer = timeZoneChoices(new Date("2026-07-15T12:00:00Z"));
    expect(winter[0]).toEqual({ zone: "UTC", offset: "UTC+00:00" });
    expect(new Set(winter.map((choice) => choice.zone)).size).toBe(winter.length);
    expect(winter.length).toBeGreaterThan(300);
    const offset = (choices: typeof winter, zone: string) => choices.find((choice) => choice.zone === accountZoneOf(zone))?.offset;
    expect(offset(winter, "Asia/Kathmandu")).toBe("UTC+05:45");
    expect(offset(winter, "Asia/Kolkata")).toBe("UTC+05:30");
    expect(offset(winter, "America/Sao_Paulo")).toBe("UTC−03:00");
    expect(offset(winter, "Australia/Lord_Howe")).toBe("UTC+11:00");
    expect(offset(summer, "Australia/Lord_Howe")).toBe("UTC+10:30");
    expect(offset(summer, "Europe/Berlin")).toBe("UTC+02:00");
    expect(winter.every((choice) => accountZoneOf(choice.zone) === choice.zone)).toBe(true);
  });
});

describe("the zone settings", () => {
  const base = { DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test" };
  const problems = (source: Record<string, string>) => {
    try {
      parseEnv({ ...base, ...source });
    } catch (error) {
      if (error instanceof EnvError) return error.problems;
      throw error;
    }
    return [];
  };

  it("default to UTC and 24 zones, and store the default zone canonically", () => {
    expect(parseEnv(base)).toMatchObject({ TALLY_DEFAULT_TIME_ZONE: "UTC", TALLY_REPORT_ZONES_MAX: 24 });
    expect(parseEnv({ ...base, TALLY_DEFAULT_TIME_ZONE: "europe/berlin", TALLY_REPORT_ZONES_MAX: "3" })).toMatchObject({
      TALLY_DEFAULT_TIME_ZONE: "Europe/Berlin",
      TALLY_REPORT_ZONES_MAX: 3,
    });
  });

  it("stop the process on a zone that is not one, or a cap below UTC alone", () => {
    expect(problems({ TALLY_DEFAULT_TIME_ZONE: "CET+1" })).toEqual([
      "TALLY_DEFAULT_TIME_ZONE must be an IANA time zone such as UTC, Europe/Berlin or America/Sao_Paulo",
    ]);
    expect(problems({ TALLY_REPORT_ZONES_MAX: "0" })).toHaveLength(1);
  });
});
