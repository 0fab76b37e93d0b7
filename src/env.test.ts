import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env";

function problemsOf(source: Record<string, string | undefined>, options?: { databaseOptional?: boolean }): string[] {
  try {
    parseEnv(source, options);
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
  return [];
}

describe("environment", () => {
  it("accepts a complete environment and applies defaults", () => {
    const env = parseEnv({ DATABASE_URL: "postgresql://u:p@db.example:5432/tally" });
    expect(env.DATABASE_URL).toBe("postgresql://u:p@db.example:5432/tally");
    expect(env.DATABASE_POOL_SIZE).toBe(10);
    expect(env.TALLY_EMBEDDED_PG_PORT).toBe(54329);
  });

  it("names a malformed DATABASE_URL in one line", () => {
    expect(problemsOf({ DATABASE_URL: "mysql://u:p@host/db" })).toEqual([
      "DATABASE_URL must be a postgresql://user:password@host:port/database URL",
    ]);
    expect(problemsOf({ DATABASE_URL: "not a url" })).toHaveLength(1);
  });

  it("reports every problem, one line each", () => {
    const problems = problemsOf({ DATABASE_POOL_SIZE: "lots", TALLY_EMBEDDED_PG_PORT: "80" });
    expect(problems).toHaveLength(3);
    expect(problems.join("\n")).toMatch(/^DATABASE_URL is required but not set$/m);
    expect(problems.join("\n")).toMatch(/^DATABASE_POOL_SIZE /m);
    expect(problems.join("\n")).toMatch(/^TALLY_EMBEDDED_PG_PORT /m);
  });

  it("lets the dev launcher run without DATABASE_URL, but not with a bad one", () => {
    expect(problemsOf({}, { databaseOptional: true })).toEqual([]);
    expect(problemsOf({ DATABASE_URL: "" }, { databaseOptional: true })).toEqual([]);
    expect(problemsOf({ DATABASE_URL: "postgres//nope" }, { databaseOptional: true })).toHaveLength(1);
  });
});
