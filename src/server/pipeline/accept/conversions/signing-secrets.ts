// A publisher's order-signing secrets (docs/conversions.md, "Signing an order token"): made by
// Tally from 256 random bits, shown once when made, kept as AES-256-GCM ciphertext
// (src/server/core/secret-box.ts, the row's id as associated data) and never shown again. A
// rotation makes a new secret and leaves the one it replaces verifying tokens for
// TALLY_SIGNING_SECRET_GRACE_HOURS, so the publisher's servers can switch over; at most two
// secrets are ever live. Intake reads the live ones through a short per-process cache.
import { randomBytes } from "node:crypto";
import { env } from "@/env";
import { type Actor, assertMayAccess, assertMayChange } from "@/server/accounts/actor";
import { recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { logger } from "@/server/core/log";
import { decryptSecret, encryptSecret } from "@/server/core/secret-box";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { lockAccountRow } from "./signing-secrets.sql";

const SECRET_PREFIX = "tss_";
// What lists show of a secret: enough to tell two apart, useless for signing.
const SHOWN_CHARACTERS = SECRET_PREFIX.length + 6;
const HOUR_MS = 3_600_000;

/** The associated data of a secret's ciphertext: its row, and what it is for. */
const boxId = (id: string) => `order-signing:${id}`;

export interface SigningSecretSummary {
  id: string;
  /** The first characters of the secret. */
  prefix: string;
  createdAt: Date;
  /** Null for the current secret; for the one it replaced, when that stops verifying tokens. */
  retiresAt: Date | null;
}

const SUMMARY = { id: true, prefix: true, createdAt: true, retiresAt: true } as const;

async function assertPublisher(actor: Actor, publisherId: string): Promise<void> {
  assertMayAccess(actor, publisherId, "account");
  const account = await db.account.findUnique({ where: { id: publisherId }, select: { kind: true } });
  if (!account) throw new TallyError("not_found", "no such account");
  if (account.kind === "advertiser") throw new TallyError("bad_request", "signing secrets belong to publishers and networks");
}

/** The publisher's secrets that still verify tokens, newest first; never a secret itself. */
export async function listSigningSecrets({ actor, publisherId }: { actor: Actor; publisherId: string }, now = new Date()): Promise<SigningSecretSummary[]> {
  await assertPublisher(actor, publisherId);
  return db.conversionSigningSecret.findMany({
    where: { publisherId, OR: [{ retiresAt: null }, { retiresAt: { gt: now } }] },
    orderBy: { createdAt: "desc" },
    select: SUMMARY,
  });
}

export interface RotatedSecret {
  /** The new secret, in clear: the only time it exists outside its ciphertext. */
  secret: string;
  current: SigningSecretSummary;
  /** The secret it replaced, verifying until its retiresAt; null when there was none (or it retired at once). */
  previous: SigningSecretSummary | null;
}

/**
 * Makes the publisher a new signing secret and returns it once. The secret it replaces verifies
 * tokens for TALLY_SIGNING_SECRET_GRACE_HOURS more, or not at all with `retirePreviousNow` (a secret
 * that leaked); one replaced before that goes at once, so no more than two are ever live. Staff, the
 * operator and the publisher's own members may do this.
 */
export async function rotateSigningSecret(
  { actor, publisherId, retirePreviousNow = false }: { actor: Actor; publisherId: string; retirePreviousNow?: boolean },
  now = new Date(),
): Promise<RotatedSecret> {
  await assertPublisher(actor, publisherId);
  assertMayChange(actor, publisherId, "account");
  const secret = SECRET_PREFIX + randomBytes(32).toString("base64url");
  const id = newId("sig");
  const retiresAt = retirePreviousNow ? now : new Date(now.getTime() + env().TALLY_SIGNING_SECRET_GRACE_HOURS * HOUR_MS);
  const result = await db.$transaction(async (tx) => {
    // One rotation at a time per publisher: two at once would each keep "the previous" live.
    await lockAccountRow(tx, publisherId);
    await tx.conversionSigningSecret.deleteMany({ where: { publisherId, retiresAt: { not: null } } });
    const replaced = await tx.conversionSigningSecret.findFirst({ where: { publisherId, retiresAt: null }, select: { id: true } });
    let previous: SigningSecretSummary | null = null;
    if (replaced && retirePreviousNow) await tx.conversionSigningSecret.delete({ where: { id: replaced.id } });
    else if (replaced) previous = await tx.conversionSigningSecret.update({ where: { id: replaced.id }, data: { retiresAt }, select: SUMMARY });
    const current = await tx.conversionSigningSecret.create({
      data: { id, publisherId, secretCiphertext: new Uint8Array(encryptSecret(secret, boxId(id))), prefix: secret.slice(0, SHOWN_CHARACTERS), createdAt: now },
      select: SUMMARY,
    });
    // The secret and its prefix stay out of the log; what happened to the one it replaced is told.
    await recordActivity(tx, actor, {
      action: "account.signing_secret.rotated",
      subject: `order-signing secret of ${publisherId}`,
      accountId: publisherId,
      before: null,
      after: { secret: "changed", previousSecret: !replaced ? "none" : retirePreviousNow ? "retired at once" : `verifies until ${retiresAt.toISOString()}` },
    });
    return { current, previous };
  });
  forgetSigningSecrets(publisherId);
  return { secret, ...result };
}

/** A live secret as intake uses it: the key, and whether it is the current one or a replaced one in its grace period. */
export interface LiveSecret {
  secret: string;
  current: boolean;
}

const holder = globalThis as unknown as { tallySigningSecrets?: Map<string, { secrets: LiveSecret[]; retiresAt: number[]; fetchedAt: number }> };

// Intake verifies every token of a publisher with the same one or two secrets: they are kept for
// a minute, and read again at once (at most every few seconds) when a token matches none of them,
// so a secret made on another server is honoured within seconds.
const CACHE_MS = 60_000;
const REFRESH_AFTER_MISS_MS = 5_000;
const CACHE_LIMIT = 10_000;

function forgetSigningSecrets(publisherId: string): void {
  holder.tallySigningSecrets?.delete(publisherId);
}

async function readLiveSecrets(publisherId: string, now: number): Promise<{ secrets: LiveSecret[]; retiresAt: number[]; fetchedAt: number }> {
  const rows = await db.conversionSigningSecret.findMany({
    where: { publisherId, OR: [{ retiresAt: null }, { retiresAt: { gt: new Date(now) } }] },
    orderBy: { createdAt: "desc" },
    select: { id: true, secretCiphertext: true, retiresAt: true },
  });
  const secrets: LiveSecret[] = [];
  const retiresAt: number[] = [];
  for (const row of rows) {
    try {
      secrets.push({ secret: decryptSecret(row.secretCiphertext, boxId(row.id)), current: row.retiresAt === null });
      retiresAt.push(row.retiresAt?.getTime() ?? Number.POSITIVE_INFINITY);
    } catch (error) {
      // A secret this server cannot read (TALLY_SECRETS_KEY changed) verifies nothing: its orders are
      // kept as unverified rather than refused, and the operator is told.
      logger().error(
        { publisherId, secretId: row.id, cause: error instanceof Error ? error.message : String(error) },
        "an order-signing secret does not decrypt",
      );
    }
  }
  return { secrets, retiresAt, fetchedAt: now };
}

/**
 * The publisher's live secrets at `now`, from the cache when it is fresh. `afterMiss`: a token
 * matched none of the cached ones, so they are read again unless they were read a moment ago.
 */
export async function liveSigningSecrets(publisherId: string, now: number, afterMiss = false): Promise<LiveSecret[]> {
  holder.tallySigningSecrets ??= new Map();
  const cache = holder.tallySigningSecrets;
  let entry = cache.get(publisherId);
  const stale = !entry || now - entry.fetchedAt >= CACHE_MS || (afterMiss && now - entry.fetchedAt >= REFRESH_AFTER_MISS_MS);
  if (stale) {
    entry = await readLiveSecrets(publisherId, now);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(publisherId, entry);
  }
  // A secret past its grace stops verifying at that moment, cached or not.
  return entry!.secrets.filter((_, i) => entry!.retiresAt[i]! > now);
}
