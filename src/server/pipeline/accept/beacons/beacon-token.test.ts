import { describe, expect, it } from "vitest";
import { TallyError } from "@/server/core/errors";
import { type BeaconClaims, sessionHashOf, signBeaconToken, verifyBeaconToken } from "./beacon-token";

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
  issuedAt: now,
  sessionHash: sessionHashOf("sess-1"),
};

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

  it("refuse tokens issued in the future beyond clock skew", () => {
    const token = signBeaconToken({ ...claims, issuedAt: now + 3600 }, newKey);
    expect(codeOf(() => verifyBeaconToken(token, "impression", [newKey], now))).toBe("not_found");
  });
});
