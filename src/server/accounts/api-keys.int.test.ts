import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { makeAdvertiser, makePublisher } from "@/testing/fixtures";
import { OPERATOR } from "./actor";
import { authenticateApiKey, createApiKey, listApiKeys, revokeApiKey } from "./api-keys";

describe("API keys", () => {
  it("shows a new key once and stores only its SHA-256 and a short prefix", async () => {
    const advertiser = await makeAdvertiser();
    const created = await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "BI export" });
    expect(created.key).toMatch(/^tly_[A-Za-z0-9_-]{32}$/);
    expect(created.prefix).toBe(created.key.slice(0, 10));
    const stored = await db.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(stored.keyHash).toBe(createHash("sha256").update(created.key).digest("hex"));
    expect(JSON.stringify(stored)).not.toContain(created.key);
    const listed = await listApiKeys({ actor: OPERATOR, accountId: advertiser.id });
    expect(listed).toEqual([{ id: created.id, name: "BI export", prefix: created.prefix, createdAt: created.createdAt, lastUsedAt: null, revokedAt: null }]);
    expect(JSON.stringify(listed)).not.toContain(created.key.slice(10));
  });

  it("authenticates a live key as its account, and records its use at most once a minute", async () => {
    const publisher = await makePublisher();
    const { key, id } = await createApiKey({ actor: OPERATOR, accountId: publisher.id, name: "reports" });
    const at = new Date("2026-11-22T10:00:00Z");
    expect(await authenticateApiKey(key, at)).toEqual({ keyId: id, accountId: publisher.id, accountKind: "publisher" });
    expect((await db.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt).toEqual(at);
    await authenticateApiKey(key, new Date(at.getTime() + 30_000));
    expect((await db.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt).toEqual(at);
    const later = new Date(at.getTime() + 61_000);
    await authenticateApiKey(key, later);
    expect((await db.apiKey.findUniqueOrThrow({ where: { id } })).lastUsedAt).toEqual(later);
  });

  it("refuses revoked, unknown and malformed keys", async () => {
    const advertiser = await makeAdvertiser();
    const { key, id } = await createApiKey({ actor: OPERATOR, accountId: advertiser.id, name: "old" });
    const revokedAt = new Date("2026-11-22T11:00:00Z");
    expect((await revokeApiKey({ actor: OPERATOR, keyId: id }, revokedAt)).revokedAt).toEqual(revokedAt);
    expect((await revokeApiKey({ actor: OPERATOR, keyId: id }, new Date())).revokedAt).toEqual(revokedAt);
    expect(await authenticateApiKey(key)).toBeNull();
    expect(await authenticateApiKey(`tly_${"A".repeat(32)}`)).toBeNull();
    for (const malformed of ["", "Bearer x", key.slice(0, -1), `${key}x`, key.replace("tly_", "tlx_")]) {
      expect(await authenticateApiKey(malformed)).toBeNull();
    }
  });

  it("does not create keys for unknown accounts, nor revoke another account's key", async () => {
    await expect(createApiKey({ actor: OPERATOR, accountId: "adv_nobody", name: "x" })).rejects.toMatchObject({ code: "not_found" });
    await expect(createApiKey({ actor: OPERATOR, accountId: "adv_nobody", name: " " })).rejects.toThrow();
    const [owner, other] = [await makeAdvertiser(), await makeAdvertiser()];
    const { id } = await createApiKey({ actor: OPERATOR, accountId: owner.id, name: "mine" });
    await expect(revokeApiKey({ actor: OPERATOR, keyId: id, accountId: other.id })).rejects.toMatchObject({ code: "not_found" });
    expect((await db.apiKey.findUniqueOrThrow({ where: { id } })).revokedAt).toBeNull();
  });
});
