import { describe, expect, it } from "vitest";
import { rateLimitFields, withRateLimitFields } from "./rate-limit-fields";

const perSecond = { name: "per-second", quota: 10, windowSeconds: 1 };
const burst = { name: "burst", quota: 20, windowSeconds: 10 };

describe("RateLimit header fields", () => {
  it("name every policy and what is left of those counted, in whole seconds rounded up", () => {
    expect(
      rateLimitFields({
        policies: [perSecond, burst],
        states: [
          { policy: perSecond, remaining: 0, msBeforeReset: 120 },
          { policy: burst, remaining: 7, msBeforeReset: 8_001 },
        ],
      }),
    ).toEqual({
      "RateLimit-Policy": '"per-second";q=10;w=1, "burst";q=20;w=10',
      RateLimit: '"per-second";r=0;t=1, "burst";r=7;t=9',
    });
  });

  it("never say less than nothing is left, nor a window already past", () => {
    expect(rateLimitFields({ policies: [perSecond], states: [{ policy: perSecond, remaining: -3, msBeforeReset: -5 }] }).RateLimit).toBe(
      '"per-second";r=0;t=0',
    );
  });

  it("keep a policy name a valid quoted string", () => {
    const odd = { name: 'a"b\\c\u00e9', quota: 1, windowSeconds: 60 };
    expect(rateLimitFields({ policies: [odd], states: [] })["RateLimit-Policy"]).toBe('"abc";q=1;w=60');
  });

  it("reach answers whose headers cannot change, by a copy with the same status and body", async () => {
    const frozen = await fetch("data:text/plain,hello");
    const answered = withRateLimitFields(frozen, { RateLimit: '"burst";r=1;t=2' });
    expect(answered.headers.get("ratelimit")).toBe('"burst";r=1;t=2');
    expect(answered.status).toBe(200);
    expect(await answered.text()).toBe("hello");
  });
});
