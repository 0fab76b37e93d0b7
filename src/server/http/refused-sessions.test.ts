import { afterEach, describe, expect, it } from "vitest";
import { TallyError } from "@/server/core/errors";
import { earlierRefusal, forgetRefusals, rememberedRefusals, rememberRefusal } from "./refused-sessions";

const rate = (seconds: number) => new TallyError("too_many_requests", "too many table files", { retryAfterSeconds: seconds });
const FIELDS = { "RateLimit-Policy": '"user-per-minute";q=20;w=60', RateLimit: '"user-per-minute";r=0;t=42' };

afterEach(forgetRefusals);

describe("refused sessions", () => {
  it("keeps at most 10,000 sessions, forgetting the oldest first", () => {
    for (let i = 0; i <= 10_000; i += 1) rememberRefusal(`token-${i}`, { refusal: rate(30), reason: "user_rate", fields: FIELDS });
    expect(rememberedRefusals()).toBe(10_000);
    expect(earlierRefusal("token-0")).toBeNull();
    expect(earlierRefusal("token-1")?.refusal.code).toBe("too_many_requests");
    expect(earlierRefusal("token-10000")?.reason).toBe("user_rate");
  });

  it("remembers only a 429 that says when to come back, and only for its own token", () => {
    rememberRefusal("a", { refusal: new TallyError("payload_too_large", "too large"), reason: "too_large", fields: {} });
    rememberRefusal("b", { refusal: new TallyError("too_many_requests", "no wait given"), reason: "user_rate", fields: {} });
    expect(rememberedRefusals()).toBe(0);
    rememberRefusal("c", { refusal: rate(30), reason: "account_rate", fields: FIELDS });
    expect(earlierRefusal("C")).toBeNull();
    expect(earlierRefusal(null)).toBeNull();
    const again = earlierRefusal("c");
    expect(again?.refusal.details?.retryAfterSeconds).toBe(30);
    expect(again?.fields).toEqual(FIELDS);
  });
});
