// The launcher must refuse a bad environment before it starts anything.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

describe("npm run dev with a malformed DATABASE_URL", () => {
  it("stops with a clear message and a non-zero exit, starting nothing", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "src/cli/app.ts", "dev"], {
      env: { ...process.env, DATABASE_URL: "postgres:/missing-host", TALLY_DATA_DIR: "/nonexistent/tally-data" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe("tally: environment: DATABASE_URL must be a postgresql://user:password@host:port/database URL");
    expect(result.stdout).not.toMatch(/starting/);
    // As long as the child may take: starting tsx took past Vitest's default 5 s on a busy machine.
  }, 30_000);
});
