// A file of its own: it points this file's process at a port where no database listens.
import { describe, expect, it } from "vitest";
import { freePort } from "@/cli/local/embedded-postgres";

describe("GET /api/health without a database", () => {
  it("answers 503 error, and says which part failed only to the metrics token", async () => {
    process.env.DATABASE_URL = `postgresql://tally:tally@127.0.0.1:${await freePort()}/tally`;
    process.env.TALLY_METRICS_TOKEN = "health-token-for-this-test-file";
    const { handleHealth } = await import("./health");
    const response = await handleHealth(new Request("http://tally.test/api/health"));
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: "error" });
    const detailed = await handleHealth(new Request("http://tally.test/api/health", { headers: { Authorization: "Bearer health-token-for-this-test-file" } }));
    expect(detailed.status).toBe(503);
    expect(await detailed.json()).toEqual({ status: "error", database: "unreachable" });
  });
});
