import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TallyError } from "@/server/core/errors";
import { SEARCH_TERM_MAX_LENGTH } from "@/server/core/search-terms";
import { type BeaconClaims, MAX_TOKEN_LENGTH, sessionHashOf, signBeaconToken, verifyBeaconToken } from "./beacon-token";

const oldKey = { id: "k1", secret: "a".repeat(40) };
const newKey = { id: "k2", secret: "b".repeat(40) };
const now = 1_800_000_000;
const claims: BeaconClaims = {
  kind: "impression",
  requestId: "7f0c6d1e-5c4b-4d37-9a53-2b9a1b7c0e11",
  adId: "ad_1",
  campaignId: "cmp_1",
  advertiserId: "adv_1",
  publisherId: "pub_1",
  site: "shop.example",
  placementName: "search-top",
  context: "search",
  adType: "banner",
  adSize: "728x90",
  searchTerm: null,
  category: null,
  issuedAt: now,
  sessionHash: sessionHashOf("sess-1"),
};

/** A token signed as by Tally before search terms were kept (or with any other array): the array as given, signed with `key`. */
function signArray(compact: unknown[], key: { id: string; secret: string }): string {
  const signedPart = `${key.id}.${Buffer.from(JSON.stringify(compact)).toString("base64url")}`;
  return `${signedPart}.${createHmac("sha256", key.secret).update(signedPart).digest("base64url")}`;
}

/** The 13 entries of the claims array before search terms were kept, in the order the old code wrote them. */
const oldCompact = (c: BeaconClaims) => [
  c.kind,
  c.requestId,
  c.adId,
  c.campaignId,
  c.advertiserId,
  c.publisherId,
  c.site,
  c.placementName,
  c.context,
  c.adType,
  c.adSize,
  c.issuedAt,
  c.sessionHash,
];

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof TallyError ? error.code : "other";
  }
  return undefined;
}

describe("beacon tokens", () => {
  it("round-trip every claim without a database", () => {
    const token = signBeaconToken(claims, newKey);
    expect(verifyBeaconToken(token, "impression", [newKey], now + 10)).toEqual(claims);
    expect(token).toMatch(/^k2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  });

  it("carry 72 bits of the session's SHA-256, the same for the same session and different for another", () => {
    // The first 9 bytes of SHA-256("sess-1"), worked out apart from this code (sha256sum, base64url).
    expect(sessionHashOf("sess-1")).toBe("q-Yz86R6J1gX");
    expect(sessionHashOf("sess-2")).not.toBe(sessionHashOf("sess-1"));
    const token = signBeaconToken(claims, newKey);
    expect(verifyBeaconToken(token, "impression", [newKey], now).sessionHash).toBe(sessionHashOf("sess-1"));
  });

  it("verify tokens of every configured key, so keys can rotate", () => {
    const signedByOld = signBeaconToken(claims, oldKey);
    expect(verifyBeaconToken(signedByOld, "impression", [newKey, oldKey], now).adId).toBe("ad_1");
    expect(codeOf(() => verifyBeaconToken(signedByOld, "impression", [newKey], now))).toBe("not_found");
  });

  it("refuse a tampered payload, signature or key id", () => {
    const token = signBeaconToken(claims, newKey);
    const [kid, payload, signature] = token.split(".") as [string, string, string];
    const forged = Buffer.from(
      JSON.stringify(JSON.parse(Buffer.from(payload, "base64url").toString()).map((v: unknown) => (v === "cmp_1" ? "cmp_2" : v))),
    ).toString("base64url");
    expect(codeOf(() => verifyBeaconToken(`${kid}.${forged}.${signature}`, "impression", [newKey], now))).toBe("not_found");
    const flipped = signature.slice(0, -2) + (signature.endsWith("A") ? "B" : "A") + signature.slice(-1);
    expect(codeOf(() => verifyBeaconToken(`${kid}.${payload}.${flipped}`, "impression", [newKey], now))).toBe("not_found");
    expect(codeOf(() => verifyBeaconToken(`k9.${payload}.${signature}`, "impression", [newKey], now))).toBe("not_found");
    expect(codeOf(() => verifyBeaconToken("garbage", "impression", [newKey], now))).toBe("not_found");
    expect(codeOf(() => verifyBeaconToken("", "impression", [newKey], now))).toBe("not_found");
  });

  it("bind a token to its event kind: an impression address is not a click address", () => {
    const token = signBeaconToken(claims, newKey);
    expect(codeOf(() => verifyBeaconToken(token, "click", [newKey], now))).toBe("not_found");
    expect(codeOf(() => verifyBeaconToken(token, "conversion", [newKey], now))).toBe("not_found");
  });

  it("expire impressions and views after 24 hours and clicks after 7 days", () => {
    const impression = signBeaconToken(claims, newKey);
    expect(verifyBeaconToken(impression, "impression", [newKey], now + 24 * 3600).adId).toBe("ad_1");
    expect(codeOf(() => verifyBeaconToken(impression, "impression", [newKey], now + 24 * 3600 + 1))).toBe("gone");
    const view = signBeaconToken({ ...claims, kind: "view" }, newKey);
    expect(codeOf(() => verifyBeaconToken(view, "view", [newKey], now + 24 * 3600 + 1))).toBe("gone");
    const click = signBeaconToken({ ...claims, kind: "click" }, newKey);
    expect(verifyBeaconToken(click, "click", [newKey], now + 7 * 24 * 3600).kind).toBe("click");
    expect(codeOf(() => verifyBeaconToken(click, "click", [newKey], now + 7 * 24 * 3600 + 1))).toBe("gone");
  });

  it("carry the normalised search term and category, or nulls", () => {
    const withTerms = { ...claims, searchTerm: "acucar organico", category: "mercearia > doces" };
    const token = signBeaconToken(withTerms, newKey);
    expect(verifyBeaconToken(token, "impression", [newKey], now)).toEqual(withTerms);
    const payload = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
    expect(payload).toHaveLength(15);
    expect(payload.slice(13)).toEqual(["acucar organico", "mercearia > doces"]);
    const termOnly = { ...claims, searchTerm: "(email)" };
    expect(verifyBeaconToken(signBeaconToken(termOnly, newKey), "impression", [newKey], now)).toEqual(termOnly);
    const none = verifyBeaconToken(signBeaconToken(claims, newKey), "impression", [newKey], now);
    expect([none.searchTerm, none.category]).toEqual([null, null]);
  });

  it("accept a 13-entry token signed before search terms were kept, as having none, for its whole life", () => {
    const click = { ...claims, kind: "click" as const };
    const old = signArray(oldCompact(click), newKey);
    expect(verifyBeaconToken(old, "click", [newKey], now + 7 * 24 * 3600)).toEqual({ ...click, searchTerm: null, category: null });
    expect(codeOf(() => verifyBeaconToken(old, "click", [newKey], now + 7 * 24 * 3600 + 1))).toBe("gone");
  });

  it("refuse claims arrays of any other length, or a term or category that is not a string or null", () => {
    const base = oldCompact(claims);
    for (const compact of [[...base, "acucar"], base.slice(0, 12), [...base, "a", "b", "c"], [...base, 1, null], [...base, null, false]]) {
      expect(codeOf(() => verifyBeaconToken(signArray(compact, newKey), "impression", [newKey], now))).toBe("not_found");
    }
    expect(verifyBeaconToken(signArray([...base, "a", null], newKey), "impression", [newKey], now).searchTerm).toBe("a");
  });

  it("refuse tokens issued in the future beyond clock skew", () => {
    const token = signBeaconToken({ ...claims, issuedAt: now + 3600 }, newKey);
    expect(codeOf(() => verifyBeaconToken(token, "impression", [newKey], now))).toBe("not_found");
  });
});

// The longest values each claim can take: account, campaign and ad ids at most 64 UTF-16 units
// (account-input.ts, campaign-input.ts, ad-input.ts), a site name 200 (account-input.ts), a
// placement name 100 code points (ad-query.schema.ts), a size "9999x9999", the longest context
// and ad type, and a search term and category of SEARCH_TERM_MAX_LENGTH code points of 4 bytes.
describe("the largest token", () => {
  const fourBytes = "\u{1D11E}"; // 𝄞, 4 bytes of UTF-8, one code point
  const terms = fourBytes.repeat(SEARCH_TERM_MAX_LENGTH);
  const largest = (id: string, site: string, placement: string, term: string | null): BeaconClaims => ({
    ...claims,
    kind: "impression",
    adId: id,
    campaignId: id,
    advertiserId: id,
    publisherId: id,
    site,
    placementName: placement,
    context: "checkout",
    adType: "product",
    adSize: "9999x9999",
    searchTerm: term,
    category: term,
  });

  it("fits the limit with the longest ASCII ids, site and placement and terms of 80 four-byte code points", () => {
    const biggest = largest("a".repeat(64), "s".repeat(200), "p".repeat(100), terms);
    const token = signBeaconToken(biggest, { id: "key-id-of-some-length", secret: "b".repeat(40) });
    expect(token.length).toBe(1842);
    expect(token.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
    expect(verifyBeaconToken(token, "impression", [{ id: "key-id-of-some-length", secret: "b".repeat(40) }], now)).toEqual(biggest);
  });

  // Ids and site names may hold any character: at their longest in 3-byte characters (with a
  // placement of 4-byte ones) a token is longest, and must still verify.
  it("fits the limit with the longest multi-byte ids, site and placement, with or without terms", () => {
    const threeBytes = "\u20AC"; // €
    const withTerms = largest(threeBytes.repeat(64), threeBytes.repeat(200), fourBytes.repeat(100), terms);
    const withoutTerms = largest(threeBytes.repeat(64), threeBytes.repeat(200), fourBytes.repeat(100), null);
    const [signedWith, signedWithout] = [withTerms, withoutTerms].map((c) => signBeaconToken(c, newKey));
    expect([signedWithout!.length, signedWith!.length]).toEqual([2591, 3439]);
    expect(signedWith!.length).toBeLessThanOrEqual(MAX_TOKEN_LENGTH);
    expect(verifyBeaconToken(signedWith!, "impression", [newKey], now)).toEqual(withTerms);
    expect(verifyBeaconToken(signedWithout!, "impression", [newKey], now)).toEqual(withoutTerms);
  });

  it("refuses a token longer than the limit unread", () => {
    const token = signBeaconToken({ ...claims, site: "s".repeat(MAX_TOKEN_LENGTH) }, newKey);
    expect(codeOf(() => verifyBeaconToken(token, "impression", [newKey], now))).toBe("not_found");
  });
});
