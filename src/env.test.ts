import { describe, expect, it } from "vitest";
import { EnvError, parseEnv, parseLauncherEnv } from "./env";

function problemsOf(source: Record<string, string | undefined>, parse: (s: typeof source) => unknown = parseEnv): string[] {
  try {
    parse(source);
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
  return [];
}

describe("environment", () => {
  it("accepts a complete environment and applies defaults", () => {
    const env = parseEnv({ DATABASE_URL: "postgresql://u:p@db.example:5432/tally", NODE_ENV: "development" });
    expect(env.DATABASE_URL).toBe("postgresql://u:p@db.example:5432/tally");
    expect(env.DATABASE_POOL_SIZE).toBe(10);
    expect(env.TALLY_EMBEDDED_PG_PORT).toBe(54329);
  });

  it("reads staff's report time zone by its canonical name, UTC unless set, and refuses a name that is no zone", () => {
    const base = { DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test" };
    expect(parseEnv(base).TALLY_DEFAULT_TIME_ZONE).toBe("UTC");
    expect(parseEnv({ ...base, TALLY_DEFAULT_TIME_ZONE: "america/sao_paulo" }).TALLY_DEFAULT_TIME_ZONE).toBe("America/Sao_Paulo");
    expect(problemsOf({ ...base, TALLY_DEFAULT_TIME_ZONE: "+05:30" })).toEqual([expect.stringContaining("TALLY_DEFAULT_TIME_ZONE")]);
  });

  it("refuses a sign-in back-off whose cap is shorter than its first step", () => {
    const base = { DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test" };
    expect(parseEnv(base).TALLY_SIGN_IN_BACKOFF_MAX_SECONDS).toBe(900);
    expect(problemsOf({ ...base, TALLY_SIGN_IN_BACKOFF_SECONDS: "60", TALLY_SIGN_IN_BACKOFF_MAX_SECONDS: "30" })).toEqual([
      "TALLY_SIGN_IN_BACKOFF_MAX_SECONDS must be at least TALLY_SIGN_IN_BACKOFF_SECONDS",
    ]);
    expect(parseEnv({ ...base, TALLY_SIGN_IN_BACKOFF_SECONDS: "60", TALLY_SIGN_IN_BACKOFF_MAX_SECONDS: "60" }).TALLY_SIGN_IN_BACKOFF_MAX_SECONDS).toBe(60);
  });

  it("names a malformed DATABASE_URL in one line", () => {
    expect(problemsOf({ DATABASE_URL: "mysql://u:p@host/db" })).toEqual(["DATABASE_URL must be a postgresql://user:password@host:port/database URL"]);
    expect(problemsOf({ DATABASE_URL: "not a url" })).toHaveLength(1);
  });

  it("signs beacons with the first of several keys, and needs keys in production", () => {
    const env = parseEnv({
      DATABASE_URL: "postgresql://u@h/db",
      NODE_ENV: "test",
      BEACON_SIGNING_KEYS: `k2:${"b".repeat(32)}, k1:${"a".repeat(32)}`,
    });
    expect(env.BEACON_SIGNING_KEYS.map((key) => key.id)).toEqual(["k2", "k1"]);
    expect(parseEnv({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test" }).BEACON_SIGNING_KEYS).toHaveLength(1);
    expect(problemsOf({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "production", TALLY_SECRETS_KEY: Buffer.alloc(32).toString("base64") })).toEqual([
      "BEACON_SIGNING_KEYS is required unless NODE_ENV is development or test (kid:secret, secret at least 32 characters)",
    ]);
    expect(problemsOf({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test", BEACON_SIGNING_KEYS: "k1:short" })).toHaveLength(1);
    expect(problemsOf({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test", BEACON_SIGNING_KEYS: `k:${"a".repeat(32)},k:${"b".repeat(32)}` })).toHaveLength(
      1,
    );
  });

  it("uses the public development keys only when NODE_ENV says development or test", () => {
    // A CLI or the collector started by hand has no NODE_ENV: that is not a development process.
    expect(problemsOf({ DATABASE_URL: "postgresql://u@h/db" })).toEqual([
      "BEACON_SIGNING_KEYS is required unless NODE_ENV is development or test (kid:secret, secret at least 32 characters)",
      "TALLY_SECRETS_KEY is required unless NODE_ENV is development or test (32 random bytes, base64)",
    ]);
    expect(problemsOf({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "" })).toHaveLength(2);
    expect(problemsOf({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "production" })).toHaveLength(2);
    const development = parseEnv({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "development" });
    const test = parseEnv({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test" });
    expect(development.BEACON_SIGNING_KEYS).toEqual([{ id: "dev", secret: "tally-development-beacon-key-not-a-secret" }]);
    expect(development.TALLY_SECRETS_KEY).toEqual(Buffer.from("tally-development-secrets-key-32"));
    expect(test.BEACON_SIGNING_KEYS).toEqual(development.BEACON_SIGNING_KEYS);
    expect(test.TALLY_SECRETS_KEY).toEqual(development.TALLY_SECRETS_KEY);
    // Keys that are set win everywhere, and unset NODE_ENV is fine with them.
    const keys = { BEACON_SIGNING_KEYS: `k1:${"a".repeat(32)}`, TALLY_SECRETS_KEY: Buffer.alloc(32, 3).toString("base64") };
    expect(parseEnv({ DATABASE_URL: "postgresql://u@h/db", ...keys }).BEACON_SIGNING_KEYS).toEqual([{ id: "k1", secret: "a".repeat(32) }]);
    expect(parseEnv({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "development", ...keys }).TALLY_SECRETS_KEY).toEqual(Buffer.alloc(32, 3));
  });

  it("reports every problem, one line each", () => {
    const problems = problemsOf({ DATABASE_POOL_SIZE: "lots", TALLY_EMBEDDED_PG_PORT: "80" });
    expect(problems).toHaveLength(3);
    expect(problems.join("\n")).toMatch(/^DATABASE_URL is required but not set$/m);
    expect(problems.join("\n")).toMatch(/^DATABASE_POOL_SIZE /m);
    expect(problems.join("\n")).toMatch(/^TALLY_EMBEDDED_PG_PORT /m);
  });

  it("lets the dev launcher run without DATABASE_URL or keys, but not with a bad one", () => {
    // npm run start:local generates the keys after this check; the servers it runs check them.
    expect(problemsOf({}, parseLauncherEnv)).toEqual([]);
    expect(parseLauncherEnv({})).not.toHaveProperty("BEACON_SIGNING_KEYS");
    expect(parseLauncherEnv({})).not.toHaveProperty("TALLY_SECRETS_KEY");
    expect(problemsOf({ BEACON_SIGNING_KEYS: "k1:short" }, parseLauncherEnv)).toHaveLength(1);
    expect(parseLauncherEnv({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
    expect(parseLauncherEnv({ DATABASE_URL: "postgresql://u@h/db" }).DATABASE_URL).toBe("postgresql://u@h/db");
    expect(problemsOf({ DATABASE_URL: "postgres//nope" }, parseLauncherEnv)).toHaveLength(1);
  });

  it("needs a 32-byte secrets key in production, and uses a development key elsewhere", () => {
    const keys = `k1:${"a".repeat(32)}`;
    expect(problemsOf({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "production", BEACON_SIGNING_KEYS: keys })).toEqual([
      "TALLY_SECRETS_KEY is required unless NODE_ENV is development or test (32 random bytes, base64)",
    ]);
    expect(problemsOf({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test", TALLY_SECRETS_KEY: Buffer.alloc(16).toString("base64") })).toEqual([
      "TALLY_SECRETS_KEY must be 32 bytes written in base64 (openssl rand -base64 32)",
    ]);
    const key = Buffer.alloc(32, 1);
    expect(
      parseEnv({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "production", BEACON_SIGNING_KEYS: keys, TALLY_SECRETS_KEY: key.toString("base64") })
        .TALLY_SECRETS_KEY,
    ).toEqual(key);
    expect(parseEnv({ DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test" }).TALLY_SECRETS_KEY).toHaveLength(32);
  });

  it("leaves another account a bulk connection by default: an account's downloads default to the bulk pool less one, at least one", () => {
    const base = { DATABASE_URL: "postgresql://u@h/db", NODE_ENV: "test" } as const;
    expect(parseEnv(base).TALLY_REPORT_DOWNLOADS_PER_ACCOUNT).toBe(2);
    expect(parseEnv({ ...base, DATABASE_BULK_POOL_SIZE: "8" }).TALLY_REPORT_DOWNLOADS_PER_ACCOUNT).toBe(7);
    expect(parseEnv({ ...base, DATABASE_BULK_POOL_SIZE: "1" }).TALLY_REPORT_DOWNLOADS_PER_ACCOUNT).toBe(1);
    expect(parseEnv({ ...base, TALLY_REPORT_DOWNLOADS_PER_ACCOUNT: "5" }).TALLY_REPORT_DOWNLOADS_PER_ACCOUNT).toBe(5);
    expect(parseEnv(base)).toMatchObject({
      TALLY_REPORT_RATE_PER_SECOND: 10,
      TALLY_REPORT_RATE_BURST: 20,
      TALLY_REPORT_DOWNLOADS_PER_KEY: 2,
      TALLY_REPORT_DOWNLOAD_WAIT_SECONDS: 2,
      TALLY_REPORT_DOWNLOAD_STALL_SECONDS: 30,
      TALLY_REPORT_DOWNLOAD_MAX_SECONDS: 600,
    });
    expect(problemsOf({ ...base, TALLY_REPORT_DOWNLOADS_PER_KEY: "0" })).toHaveLength(1);
    expect(problemsOf({ ...base, TALLY_REPORT_DOWNLOAD_STALL_SECONDS: "0.5" })).toHaveLength(1);
  });
});
