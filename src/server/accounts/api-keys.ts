// API keys of the report routes (docs/interface-decisions.md §5): each belongs to one account, is shown once when
// created, and is stored as its SHA-256. A key carries 192 random bits, so a fast hash is enough:
// guessing is hopeless however fast each guess is, and a lookup by hash is one index probe.
import { createHash, randomBytes } from "node:crypto";
import { recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { type Actor, assertMayAccess, assertMayChange, mayAccess } from "./actor";
import { type TCreateApiKeyInput, ZCreateApiKeyInput } from "./api-key-input";

const KEY_PREFIX = "tly_";
// What the dashboard and the CLI show of a key: enough to tell keys apart, useless to an attacker.
const SHOWN_CHARACTERS = KEY_PREFIX.length + 6;
const KEY_PATTERN = /^tly_[A-Za-z0-9_-]{32}$/;

const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

export { type TCreateApiKeyInput, ZCreateApiKeyInput } from "./api-key-input";

export interface ApiKeySummary {
  id: string;
  name: string;
  /** The first characters of the key, for telling keys apart. */
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const SUMMARY = { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

/**
 * Creates a key for an account the actor may manage (the operator when no actor is given). The
 * returned `key` is the only time the secret exists in clear.
 */
export async function createApiKey(input: TCreateApiKeyInput & { actor: Actor }): Promise<ApiKeySummary & { key: string; accountId: string }> {
  const data = ZCreateApiKeyInput.parse(input);
  assertMayChange(input.actor, data.accountId, "account");
  const account = await db.account.findUnique({ where: { id: data.accountId }, select: { id: true } });
  if (!account) throw new TallyError("not_found", `no account ${data.accountId}`);
  const key = KEY_PREFIX + randomBytes(24).toString("base64url");
  const created = await db.$transaction(async (tx) => {
    const row = await tx.apiKey.create({
      data: { id: newId("key"), accountId: account.id, name: data.name, prefix: key.slice(0, SHOWN_CHARACTERS), keyHash: hashKey(key) },
      select: SUMMARY,
    });
    // The key, its prefix and its hash stay out of the log: the name and id tell keys apart.
    await recordActivity(tx, input.actor, {
      action: "api_key.created",
      subject: keySubject(row),
      accountId: account.id,
      before: null,
      after: { name: row.name },
    });
    return row;
  });
  return { ...created, key, accountId: account.id };
}

/** The keys of an account the actor may see, newest first, revoked ones included; never the secret or its hash. */
export async function listApiKeys({ actor, accountId }: { actor: Actor; accountId: string }): Promise<ApiKeySummary[]> {
  assertMayAccess(actor, accountId, "account");
  return db.apiKey.findMany({ where: { accountId }, orderBy: { createdAt: "desc" }, select: SUMMARY });
}

/**
 * Revokes a key; revoking a revoked key keeps its first revocation time. A key of an account the
 * actor may not see (the operator when none is given), or, with `accountId`, of another account
 * than that one, is "not found", as if it did not exist.
 */
export async function revokeApiKey(input: { keyId: string; accountId?: string; actor: Actor }, now = new Date()): Promise<ApiKeySummary> {
  const actor = input.actor;
  if (input.accountId !== undefined) assertMayAccess(actor, input.accountId, "account");
  const key = await db.apiKey.findUnique({ where: { id: input.keyId }, select: { accountId: true, revokedAt: true } });
  if (!key || (input.accountId !== undefined && key.accountId !== input.accountId) || !mayAccess(actor, key.accountId)) {
    throw new TallyError("not_found", `no API key ${input.keyId}`);
  }
  assertMayChange(actor, key.accountId, "account");
  return db.$transaction(async (tx) => {
    // Only the first revocation changes the key, so only it is logged.
    const first = await tx.apiKey.updateMany({ where: { id: input.keyId, revokedAt: null }, data: { revokedAt: now } });
    const revoked = await tx.apiKey.findUniqueOrThrow({ where: { id: input.keyId }, select: SUMMARY });
    if (first.count === 1) {
      await recordActivity(tx, actor, {
        action: "api_key.revoked",
        subject: keySubject(revoked),
        accountId: key.accountId,
        before: { revokedAt: null },
        after: { revokedAt: now.toISOString() },
      });
    }
    return revoked;
  });
}

const keySubject = (key: { id: string; name: string }) => `API key ${key.name} (${key.id})`;

export interface ApiKeyCaller {
  keyId: string;
  accountId: string;
  accountKind: "publisher" | "advertiser" | "network";
}

// A key's last use is written at most once a minute: a report route should not write on every call.
const LAST_USED_RESOLUTION_MS = 60_000;

/** The account behind a key, or null for anything that is not a live key. */
export async function authenticateApiKey(key: string, now = new Date()): Promise<ApiKeyCaller | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const found = await db.apiKey.findUnique({
    where: { keyHash: hashKey(key) },
    select: { id: true, revokedAt: true, lastUsedAt: true, account: { select: { id: true, kind: true } } },
  });
  if (!found || found.revokedAt) return null;
  if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await db.apiKey.update({ where: { id: found.id }, data: { lastUsedAt: now } });
  }
  return { keyId: found.id, accountId: found.account.id, accountKind: found.account.kind };
}
