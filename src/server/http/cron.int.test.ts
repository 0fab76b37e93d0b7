import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { recordConversion } from "@/server/conversions/record-conversion";
import { db } from "@/server/db/client";
import { makePublisher } from "@/testing/fixtures";
import { handleAttributionCron } from "./cron";

// Read by env() on first use, which no import above makes.
process.env.CRON_SECRET = "cron-secret-for-this-test-file";

const call = (authorization?: string) =>
  handleAttributionCron(new Request("http://tally.test/api/cron/attribution", { headers: authorization ? { Authorization: authorization } : {} }));

describe("GET /api/cron/attribution", () => {
  it("refuses calls without the cron secret and runs nothing", async () => {
    const publisher = await makePublisher();
    await recordConversion(
      { publisher_id: publisher.id, user_id: "u", session_id: "s", order_id: "o-1", created_at: new Date().toISOString(), channel: "app", email_hashed: createHash("sha256").update("a@b.c").digest("hex"), items: [{ sku: "x", quantity: 1, price: 1, promotional_price: 1 }] },
      new Date(Date.now() - 60_000),
    );
    for (const authorization of [undefined, "Bearer wrong", "cron-secret-for-this-test-file"]) {
      const response = await call(authorization);
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: { code: "unauthorized", message: "a cron route needs Authorization: Bearer <CRON_SECRET>" } });
    }
    expect(await db.conversion.count({ where: { attributedAt: null } })).toBe(1);

    const response = await call("Bearer cron-secret-for-this-test-file");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ orders: 1, items: 0, attributed_orders: 0, duration_ms: expect.any(Number) });
    expect(await db.conversion.count({ where: { attributedAt: null } })).toBe(0);
  });
});
