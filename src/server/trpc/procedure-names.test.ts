import { describe, expect, it } from "vitest";
import { TallyError } from "@/server/core/errors";
import { batchesSignIn, namedProcedures } from "./procedure-names";

const named = (pathname: string) => namedProcedures(pathname);

describe("the procedures a request names", () => {
  it("are its path after the endpoint, split at commas, as tRPC reads a batch", () => {
    expect(named("/api/trpc/auth.me")).toEqual(["auth.me"]);
    expect(named("/api/trpc/auth.me,campaigns.list")).toEqual(["auth.me", "campaigns.list"]);
    expect(named("/api/trpc/auth.signIn/")).toEqual(["auth.signIn"]);
  });

  it("are read through any layering of percent-escapes", () => {
    expect(named("/api/trpc/auth.signIn%2Cauth.signIn")).toEqual(["auth.signIn", "auth.signIn"]);
    expect(named("/api/trpc/auth.signIn%2cauth.signIn")).toEqual(["auth.signIn", "auth.signIn"]);
    expect(named("/api/trpc/auth.signIn%252Cauth.signIn")).toEqual(["auth.signIn", "auth.signIn"]);
    expect(named("/api/trpc/auth%2EsignIn,auth%252esignIn")).toEqual(["auth.signIn", "auth.signIn"]);
    expect(named("/api/trpc/%61uth.signIn%2C")).toEqual(["auth.signIn", ""]);
  });

  it("refuse a path that is not valid percent-encoding", () => {
    for (const path of ["/api/trpc/auth.signIn%2", "/api/trpc/%E0%A4%A", "/api/trpc/%ZZ", "/api/trpc/auth.signIn%25ZZ"]) {
      expect(() => named(path)).toThrow(TallyError);
      expect(() => named(path)).toThrow("the path is not valid percent-encoding");
    }
  });
});

describe("a batch holding auth.signIn", () => {
  it("is any list of two or more names of which one is auth.signIn, in any case or padding", () => {
    expect(batchesSignIn(["auth.signIn", "auth.signIn"])).toBe(true);
    expect(batchesSignIn(["auth.me", "auth.signIn"])).toBe(true);
    expect(batchesSignIn(["auth.signIn", ""])).toBe(true);
    expect(batchesSignIn(["", "auth.signIn"])).toBe(true);
    expect(batchesSignIn(["AUTH.SIGNIN", "auth.me"])).toBe(true);
    expect(batchesSignIn([" /auth.signIn/ ", "auth.me"])).toBe(true);
  });

  it("is not a sign-in alone, nor a batch of other procedures", () => {
    expect(batchesSignIn(["auth.signIn"])).toBe(false);
    expect(batchesSignIn(["auth.me", "campaigns.list"])).toBe(false);
    expect(batchesSignIn(["auth.signOut", "auth.me"])).toBe(false);
  });
});
