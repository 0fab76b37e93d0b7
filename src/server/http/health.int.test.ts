import { describe, expect, it } from "vitest";
import { handleHealth } from "./health";

describe("GET /api/health", () => {
  it("answers 200 ok when the database is reachable", async () => {
    const response = await handleHealth();
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ status: "ok", database: "ok" });
  });
});
