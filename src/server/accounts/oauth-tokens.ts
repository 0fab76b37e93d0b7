// Access tokens of OAuth clients (RFC 6749 §4.4, client credentials; docs/oauth.md). A client
// trades its id and secret for a token of an hour; the report routes find the token by its hash
// (one probe of the primary key, whatever the number of tokens) and read its client's revocation
// with it, so a revoked client's tokens stop on their next use. Tokens are stored as SHA-256,
// like API keys, and deleted once expired (upkeep), or when their client is rotated or revoked.
import { db } from "@/server/db/client";
import { OAUTH_SCOPES, type OauthScope } from "./oauth-client-input";
import { ACCESS_TOKEN_PATTERN, ACCESS_TOKEN_PREFIX, CLIENT_ID_PATTERN, newAccessToken, secretMatches, sha256Hex } from "./oauth-secrets";
import { findAccessToken } from "./oauth-tokens.sql";

export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

export type ClientCredentialsGrant =
  | { granted: true; accessToken: string; expiresInSeconds: number; scopes: OauthScope[] }
  | { granted: false; error: "invalid_client" | "invalid_scope"; description: string };

// One answer for an unknown client, a revoked one and a wrong secret: which it was is not told.
const CLIENT_REFUSED: ClientCredentialsGrant = { granted: false, error: "invalid_client", description: "client authentication failed" };

/** The scopes asked for (space separated; null: every scope the client may have), or the ones it may not have. */
function grantedScopes(allowed: string[], asked: string | null): { scopes: OauthScope[] } | { refused: string[] } {
  if (asked === null) return { scopes: OAUTH_SCOPES.filter((scope) => allowed.includes(scope)) };
  const names = asked.split(" ").filter((name) => name !== "");
  const refused = names.filter((name) => !allowed.includes(name) || !(OAUTH_SCOPES as readonly string[]).includes(name));
  if (refused.length > 0 || names.length === 0) return { refused };
  return { scopes: OAUTH_SCOPES.filter((scope) => names.includes(scope)) };
}

/** A client whose id and secret were just checked, as issueAccessToken needs it. */
export interface VerifiedClient {
  id: string;
  secretHash: string;
  scopes: string[];
}

/**
 * Whether these are a live client's id and secret. An unknown client costs the same look-up, hash
 * and comparison as a wrong secret (secretMatches), and gets the same refusal.
 */
export async function verifyClientCredentials(request: {
  clientId: string;
  clientSecret: string;
}): Promise<{ verified: true; client: VerifiedClient } | { verified: false; refusal: ClientCredentialsGrant }> {
  // An id not of a client's form is known to be no client without a look-up; the secret is still hashed and compared.
  const found = CLIENT_ID_PATTERN.test(request.clientId)
    ? await db.oauthClient.findUnique({ where: { id: request.clientId }, select: { secretHash: true, scopes: true, revokedAt: true } })
    : null;
  const live = found && found.revokedAt === null ? found : null;
  if (!secretMatches(live?.secretHash ?? null, request.clientSecret) || !live) return { verified: false, refusal: CLIENT_REFUSED };
  return { verified: true, client: { id: request.clientId, secretHash: live.secretHash, scopes: live.scopes } };
}

/** A token for a verified client, holding the scopes asked for (all its scopes when `scope` is null). */
export async function issueAccessToken(client: VerifiedClient, scope: string | null, now = new Date()): Promise<ClientCredentialsGrant> {
  const scopes = grantedScopes(client.scopes, scope);
  if ("refused" in scopes) {
    const refused = scopes.refused.length === 0 ? "an empty scope is" : `${scopes.refused.join(" ")} ${scopes.refused.length === 1 ? "is" : "are"}`;
    return { granted: false, error: "invalid_scope", description: `${refused} not allowed for this client; it may ask for: ${client.scopes.join(" ")}` };
  }
  const accessToken = newAccessToken();
  const issued = await db.$transaction(async (tx) => {
    // Under the secret just checked: a rotation or revocation that committed meanwhile matches no
    // row, and one still running waits for this transaction, then deletes the token it made.
    const { count } = await tx.oauthClient.updateMany({
      where: { id: client.id, secretHash: client.secretHash, revokedAt: null },
      data: { lastUsedAt: now },
    });
    if (count === 0) return false;
    await tx.oauthAccessToken.create({
      data: {
        tokenHash: sha256Hex(accessToken),
        clientId: client.id,
        scopes: scopes.scopes,
        createdAt: now,
        expiresAt: new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_SECONDS * 1000),
      },
    });
    return true;
  });
  return issued ? { granted: true, accessToken, expiresInSeconds: ACCESS_TOKEN_LIFETIME_SECONDS, scopes: scopes.scopes } : CLIENT_REFUSED;
}

/** verifyClientCredentials, then issueAccessToken: a token for the client whose id and secret these are. */
export async function grantClientCredentials(
  request: { clientId: string; clientSecret: string; scope: string | null },
  now = new Date(),
): Promise<ClientCredentialsGrant> {
  const verified = await verifyClientCredentials(request);
  return verified.verified ? issueAccessToken(verified.client, request.scope, now) : verified.refusal;
}

export interface AccessTokenCaller {
  clientId: string;
  accountId: string;
  accountKind: "publisher" | "advertiser" | "network";
  scopes: OauthScope[];
}

/** Whether a bearer credential is an access token rather than an API key (tly_…). */
export const isAccessToken = (credential: string): boolean => credential.startsWith(ACCESS_TOKEN_PREFIX);

/** The client and account behind a live token; null for anything else (malformed, unknown, expired, its client revoked). */
export async function authenticateAccessToken(token: string, now = new Date()): Promise<AccessTokenCaller | null> {
  if (!ACCESS_TOKEN_PATTERN.test(token)) return null;
  const found = await findAccessToken(sha256Hex(token));
  if (!found || found.expires_at.getTime() <= now.getTime() || found.client_revoked_at !== null) return null;
  return {
    clientId: found.client_id,
    accountId: found.account_id,
    accountKind: found.account_kind,
    scopes: OAUTH_SCOPES.filter((scope) => found.scopes.includes(scope)),
  };
}

/** Deletes the tokens expired by `now` (upkeep); how many. */
export async function purgeExpiredAccessTokens(now: Date): Promise<number> {
  const { count } = await db.oauthAccessToken.deleteMany({ where: { expiresAt: { lte: now } } });
  return count;
}
