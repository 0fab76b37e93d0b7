// OAuth clients of the report routes (docs/oauth.md): machines of one account that trade their id
// and secret for short-lived access tokens (oauth-tokens.ts). The same rules as API keys: made,
// listed, rotated and revoked by whoever may manage the account; another account's client is "not
// found". The secret exists in clear only in the answer that makes it. Rotating or revoking a
// client deletes its access tokens in the same transaction: whoever holds the old secret, or a
// token got with it, is cut off at once.
import { recordActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { type Actor, assertMayAccess, assertMayChange, mayAccess } from "./actor";
import { type OauthScope, type TCreateOauthClientInput, ZCreateOauthClientInput } from "./oauth-client-input";
import { newClientId, newClientSecret, sha256Hex } from "./oauth-secrets";

export { OAUTH_SCOPES, type OauthScope, type TCreateOauthClientInput, ZCreateOauthClientInput } from "./oauth-client-input";

export interface OauthClientSummary {
  /** The public client id, tlc_…. */
  id: string;
  name: string;
  scopes: OauthScope[];
  createdAt: Date;
  /** When it last got an access token. */
  lastUsedAt: Date | null;
  secretRotatedAt: Date | null;
  revokedAt: Date | null;
}

const SUMMARY = { id: true, name: true, scopes: true, createdAt: true, lastUsedAt: true, secretRotatedAt: true, revokedAt: true } as const;

// The column holds text; only OAUTH_SCOPES are ever written to it (ZCreateOauthClientInput).
const summary = (row: Omit<OauthClientSummary, "scopes"> & { scopes: string[] }): OauthClientSummary => ({ ...row, scopes: row.scopes as OauthScope[] });

/**
 * Makes a client for an account the actor may manage (the operator when no actor is given). The
 * returned `secret` is the only time it exists in clear.
 */
export async function createOauthClient(
  input: TCreateOauthClientInput & { actor: Actor },
): Promise<OauthClientSummary & { secret: string; accountId: string }> {
  const data = ZCreateOauthClientInput.parse(input);
  assertMayChange(input.actor, data.accountId, "account");
  const account = await db.account.findUnique({ where: { id: data.accountId }, select: { id: true } });
  if (!account) throw new TallyError("not_found", `no account ${data.accountId}`);
  const secret = newClientSecret();
  const created = await db.$transaction(async (tx) => {
    const row = await tx.oauthClient.create({
      data: { id: newClientId(), accountId: account.id, name: data.name, scopes: data.scopes, secretHash: sha256Hex(secret) },
      select: SUMMARY,
    });
    await recordActivity(tx, input.actor, {
      action: "oauth_client.created",
      subject: clientSubject(row),
      accountId: account.id,
      before: null,
      after: { name: row.name, scopes: row.scopes },
    });
    return row;
  });
  return { ...summary(created), secret, accountId: account.id };
}

/** The clients of an account the actor may see, newest first, revoked ones included; never a secret or its hash. */
export async function listOauthClients({ actor, accountId }: { actor: Actor; accountId: string }): Promise<OauthClientSummary[]> {
  assertMayAccess(actor, accountId, "account");
  const rows = await db.oauthClient.findMany({ where: { accountId }, orderBy: { createdAt: "desc" }, select: SUMMARY });
  return rows.map(summary);
}

interface ClientTarget {
  clientId: string;
  /** When given, a client of another account than this one is not found either. */
  accountId?: string;
  actor: Actor;
}

const clientSubject = (client: { id: string; name: string }) => `OAuth client ${client.name} (${client.id})`;

/** The client's account, name and revocation, or not found for one the actor may not see. */
async function findManagedClient({ clientId, accountId, actor }: ClientTarget) {
  if (accountId !== undefined) assertMayAccess(actor, accountId, "account");
  const client = await db.oauthClient.findUnique({ where: { id: clientId }, select: { accountId: true, name: true, revokedAt: true } });
  if (!client || (accountId !== undefined && client.accountId !== accountId) || !mayAccess(actor, client.accountId)) {
    throw new TallyError("not_found", `no OAuth client ${clientId}`);
  }
  assertMayChange(actor, client.accountId, "account");
  return client;
}

/**
 * Gives a live client a new secret, returned this once: the old secret stops at once, and the
 * access tokens got with it are deleted.
 */
export async function rotateOauthClientSecret(input: ClientTarget, now = new Date()): Promise<OauthClientSummary & { secret: string }> {
  const client = await findManagedClient(input);
  if (client.revokedAt) throw new TallyError("bad_request", `OAuth client ${input.clientId} is revoked; make a new one`);
  const secret = newClientSecret();
  const rotated = await db.$transaction(async (tx) => {
    // Issuing a token updates this row under the same secret's hash (oauth-tokens.ts), so an
    // issue racing this rotation either commits first, and its token is deleted below, or fails.
    const row = await tx.oauthClient.update({ where: { id: input.clientId }, data: { secretHash: sha256Hex(secret), secretRotatedAt: now }, select: SUMMARY });
    await tx.oauthAccessToken.deleteMany({ where: { clientId: input.clientId } });
    // Neither secret nor hash: that it changed is the whole story.
    await recordActivity(tx, input.actor, {
      action: "oauth_client.rotated",
      subject: clientSubject(row),
      accountId: client.accountId,
      before: null,
      after: { secret: "changed" },
    });
    return row;
  });
  return { ...summary(rotated), secret };
}

/**
 * Revokes a client and deletes its access tokens; revoking a revoked client keeps its first
 * revocation time. A revoked client gets no token and can never be used again.
 */
export async function revokeOauthClient(input: ClientTarget, now = new Date()): Promise<OauthClientSummary> {
  const client = await findManagedClient(input);
  const revoked = await db.$transaction(async (tx) => {
    const first = await tx.oauthClient.updateMany({ where: { id: input.clientId, revokedAt: null }, data: { revokedAt: now } });
    await tx.oauthAccessToken.deleteMany({ where: { clientId: input.clientId } });
    if (first.count === 1) {
      await recordActivity(tx, input.actor, {
        action: "oauth_client.revoked",
        subject: clientSubject({ id: input.clientId, name: client.name }),
        accountId: client.accountId,
        before: { revokedAt: null },
        after: { revokedAt: now.toISOString() },
      });
    }
    return tx.oauthClient.findUniqueOrThrow({ where: { id: input.clientId }, select: SUMMARY });
  });
  return summary(revoked);
}
