import { describe, expect, it } from "vitest";
import { signBeaconToken } from "@/server/pipeline/accept/beacons/beacon-token";
import { COLLECTOR_ORIGIN, pathnameOf } from "./request-path";

const token = signBeaconToken(
  {
    kind: "click",
    requestId: "req-1",
    adId: "ad_1",
    campaignId: "cmp_1",
    advertiserId: "adv_1",
    publisherId: "pub_1",
    site: "shop.example",
    placementName: "home",
    context: "home",
    adType: "product",
    adSize: null,
    searchTerm: null,
    category: null,
    issuedAt: 1_800_000_000,
    sessionHash: "abc",
  },
  { id: "k1", secret: "a-secret-of-some-length" },
);

const TARGETS = [
  "/",
  "/v1/ads",
  `/v1/beacon/click/${token}`,
  `/v1/beacon/click/${token}/`,
  `/v1/beacon/click/${token}?x=1`,
  "/v1/beacon/conversion",
  "/v1/beacon/conversion?",
  "//v1/beacon/conversion",
  "/v1/beacon/./click/abc",
  "/v1/beacon/../beacon/click/abc",
  "/v1/beacon/click/..",
  "/v1/beacon/click/.",
  "/v1/beacon/click/.../x",
  "/v1/beacon/click/..abc",
  "/v1/beacon/click/.abc",
  "/v1/beacon/click/abc.",
  "/v1/beacon/%2e%2e/click/abc",
  "/v1/beacon/%2E/click",
  "/v1/beacon\\click\\abc",
  "/v1/beacon/click/a b",
  "/v1/beacon/click/é",
  "/v1/beacon/click/a#frag",
  "/v1/beacon/click/a|b",
  "/v1/beacon/click/a%20b",
  "http://other.example/v1/beacon/conversion",
  "*",
  "/v1/beacon/click/abc?a=/../b",
];

describe("pathnameOf", () => {
  it.each(TARGETS)("gives new URL's pathname for %s", (target) => {
    expect(pathnameOf(target)).toBe(new URL(`${COLLECTOR_ORIGIN}${target}`).pathname);
  });

  it("gives a beacon address's path as it came, with no URL built", () => {
    expect(pathnameOf(`/v1/beacon/click/${token}?utm=1`)).toBe(`/v1/beacon/click/${token}`);
  });
});
