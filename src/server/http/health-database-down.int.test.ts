// A file of its own: it points this file's process at a port where no database listens.
import { describe, expect, it } from "vitest";
import { freePort } from "@/cli/local/embedded-postgres";

describe("GET /api/health without a database", () => {
  it("answers 503 and says the database is unreachable", async () => {
    process.env.DATABASE_URL = `postgresql://tally:tally@127.0.0.1:${await freePort()}/tally`;
    const { handleHealth } = await import("./health");
    const response = await handleHealth();
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: "error", database: "unreachable" });
  });
});
