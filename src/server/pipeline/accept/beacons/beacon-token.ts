// Beacon ids: opaque signed tokens that carry everything an event row needs about the served ad,
// so a beacon is verified and stored without reading the database first: the search term and
// category of the ad query too, normalised (core/search-terms.ts), as every event and attribution
// of the ad keeps them.
// Format: `<kid>.<base64url(JSON payload)>.<base64url(HMAC-SHA256(secret, "<kid>.<payload>"))>`.
// The key id names which configured secret signed it, so keys rotate: the first configured key
// signs, every configured key verifies.
import { createHmac, hash, timingSafeEqual } from "node:crypto";
import { TallyError } from "@/server/core/errors";
import { type AdType, EVENT_KINDS, type EventClaims, type EventKind } from "@/server/store/settle-types";

export interface SigningKey {
  id: string;
  secret: string;
}

/** What a served ad's beacon token says about it: what its event stores, when it was served and to which session. */
export interface BeaconClaims extends EventClaims {
  /** When the ad was handed out, in seconds since the epoch. */
  issuedAt: number;
  /**
   * sessionHashOf(the session_id the ad query named): a beacon from another session is stored as
   * invalid traffic (session_mismatch), so one served ad cannot be replayed as many shoppers.
   */
  sessionHash: string;
}

/**
 * 72 bits of SHA-256 of a session id, base64url: what a token carries of the session it was
 * served to. Not a secret (the token's holder knows the session id); long enough that finding
 * another session id with the same value takes 2^72 tries.
 */
export function sessionHashOf(sessionId: string): string {
  // crypto.hash: one call and no Hash object, about half of createHash's time measured alone.
  return hash("sha256", sessionId, "buffer").subarray(0, 9).toString("base64url");
}

/** Impression and view addresses live a day after the ad was served; clicks a week. */
export const TOKEN_LIFETIME_SECONDS: Record<EventKind, number> = {
  impression: 24 * 3600,
  view: 24 * 3600,
  click: 7 * 24 * 3600,
};

// Tokens issued "in the future" beyond this are refused: clocks of app servers may drift a little.
const CLOCK_SKEW_SECONDS = 300;

/**
 * How far apart two beacons of one token can be accepted: from CLOCK_SKEW_SECONDS before it was
 * issued to the end of its life. Settling looks this far back for the token's earlier beacons, so
 * the look-up touches a week of ad_events' day partitions at most, however long history is.
 */
export const TOKEN_SPAN_SECONDS: Record<EventKind, number> = {
  impression: TOKEN_LIFETIME_SECONDS.impression + CLOCK_SKEW_SECONDS,
  view: TOKEN_LIFETIME_SECONDS.view + CLOCK_SKEW_SECONDS,
  click: TOKEN_LIFETIME_SECONDS.click + CLOCK_SKEW_SECONDS,
};
/**
 * The longest token verified: a longer one is refused unread. Above the longest the ad query can
 * sign (every claim at its longest in multi-byte characters: 3,439, beacon-token.test.ts), so no
 * served ad's beacon is refused for its length, and short enough to bound a forged token's work.
 */
export const MAX_TOKEN_LENGTH = 4096;

// The claims array as tokens signed before search terms were kept carry it: 13 entries, read as
// searchTerm and category null. Click tokens live a week, so those are accepted for as long.
type CompactClaimsWithoutTerms = [
  kind: EventKind,
  requestId: string,
  adId: string,
  campaignId: string,
  advertiserId: string,
  publisherId: string,
  site: string,
  placementName: string,
  context: string,
  adType: AdType,
  adSize: string | null,
  issuedAt: number,
  sessionHash: string,
];

// Today's array: the same 13 entries, then the search term and the category (string or null).
type CompactClaims = [...CompactClaimsWithoutTerms, searchTerm: string | null, category: string | null];

function sign(secret: string, signedPart: string): Buffer {
  return createHmac("sha256", secret).update(signedPart).digest();
}

export function signBeaconToken(claims: BeaconClaims, key: SigningKey): string {
  // An array, not an object: the token rides in a URL, so every byte counts.
  const compact: CompactClaims = [
    claims.kind,
    claims.requestId,
    claims.adId,
    claims.campaignId,
    claims.advertiserId,
    claims.publisherId,
    claims.site,
    claims.placementName,
    claims.context,
    claims.adType,
    claims.adSize,
    claims.issuedAt,
    claims.sessionHash,
    claims.searchTerm,
    claims.category,
  ];
  const signedPart = `${key.id}.${Buffer.from(JSON.stringify(compact)).toString("base64url")}`;
  return `${signedPart}.${sign(key.secret, signedPart).toString("base64url")}`;
}

const notFound = () => new TallyError("not_found", "unknown beacon address");

const isStringOrNull = (value: unknown) => value === null || typeof value === "string";

/** A claims array of either length: 13 entries (signed before search terms were kept) or 15. */
function isCompactClaims(value: unknown): value is CompactClaimsWithoutTerms | CompactClaims {
  if (!Array.isArray(value) || (value.length !== 13 && value.length !== 15)) return false;
  const strings = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12].every((i) => typeof value[i] === "string");
  return (
    strings &&
    isStringOrNull(value[10]) &&
    Number.isInteger(value[11]) &&
    (EVENT_KINDS as readonly unknown[]).includes(value[0]) &&
    (value.length === 13 || (isStringOrNull(value[13]) && isStringOrNull(value[14])))
  );
}

/**
 * Verifies a token for the kind in the address it was posted to. Tampered, unknown-key, wrong-kind
 * and malformed tokens are all `not_found`, so a probe learns nothing; an expired one is `gone`.
 */
export function verifyBeaconToken(token: string, kind: string, keys: readonly SigningKey[], nowSeconds = Math.floor(Date.now() / 1000)): BeaconClaims {
  if (token.length > MAX_TOKEN_LENGTH) throw notFound();
  const lastDot = token.lastIndexOf(".");
  const firstDot = token.indexOf(".");
  if (firstDot <= 0 || lastDot === firstDot) throw notFound();
  const keyId = token.slice(0, firstDot);
  const key = keys.find((candidate) => candidate.id === keyId);
  if (!key) throw notFound();
  const signedPart = token.slice(0, lastDot);
  const given = Buffer.from(token.slice(lastDot + 1), "base64url");
  const expected = sign(key.secret, signedPart);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw notFound();

  let compact: unknown;
  try {
    compact = JSON.parse(Buffer.from(token.slice(firstDot + 1, lastDot), "base64url").toString("utf8"));
  } catch {
    throw notFound();
  }
  if (!isCompactClaims(compact) || compact[0] !== kind) throw notFound();
  const [tokenKind, requestId, adId, campaignId, advertiserId, publisherId, site, placementName, context, adType, adSize, issuedAt, sessionHash] = compact;
  const searchTerm = compact.length === 15 ? compact[13] : null;
  const category = compact.length === 15 ? compact[14] : null;
  if (issuedAt > nowSeconds + CLOCK_SKEW_SECONDS) throw notFound();
  if (nowSeconds - issuedAt > TOKEN_LIFETIME_SECONDS[tokenKind]) {
    throw new TallyError("gone", "this beacon address has expired");
  }
  return {
    kind: tokenKind,
    requestId,
    adId,
    campaignId,
    advertiserId,
    publisherId,
    site,
    placementName,
    context,
    adType,
    adSize,
    issuedAt,
    sessionHash,
    searchTerm,
    category,
  };
}
