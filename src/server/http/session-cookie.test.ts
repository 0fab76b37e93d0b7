import { describe, expect, it } from "vitest";
import { secureCookies, sessionCookie } from "./session-cookie";

describe("the session cookie", () => {
  it("is Secure in production whatever scheme the request shows, and unset NODE_ENV counts as production", () => {
    expect(secureCookies("production", "http:")).toBe(true);
    expect(secureCookies("production", "https:")).toBe(true);
    expect(secureCookies(undefined, "http:")).toBe(true);
  });

  it("is Secure in development and tests only over https", () => {
    expect(secureCookies("development", "http:")).toBe(false);
    expect(secureCookies("test", "http:")).toBe(false);
    expect(secureCookies("development", "https:")).toBe(true);
    expect(secureCookies("test", "https:")).toBe(true);
  });

  it("sets a session http-only, SameSite=Lax, until its end, and clears it the same way", () => {
    const end = new Date("2026-12-01T10:00:00Z");
    expect(sessionCookie("token-1", end, true)).toBe("tally_session=token-1; Path=/; HttpOnly; SameSite=Lax; Secure; Expires=Tue, 01 Dec 2026 10:00:00 GMT");
    expect(sessionCookie("token-1", end, false)).toBe("tally_session=token-1; Path=/; HttpOnly; SameSite=Lax; Expires=Tue, 01 Dec 2026 10:00:00 GMT");
    expect(sessionCookie(null, undefined, true)).toBe("tally_session=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0");
  });
});
