import { describe, expect, it } from "vitest";
import { baseUrlNote, cliBaseUrl } from "./base-url";

describe("the base address of a CLI's links", () => {
  it("is --base-url first, then TALLY_PUBLIC_URL, then the running launcher's, then npm run dev's default, said to be a guess", () => {
    const all = { option: "https://tally.example.com/", publicUrl: "https://public.example.com", launcher: "http://localhost:3130" };
    expect(cliBaseUrl(all)).toEqual({ url: "https://tally.example.com", from: "--base-url", guessed: false });
    expect(cliBaseUrl({ ...all, option: undefined })).toMatchObject({ url: "https://public.example.com", from: "TALLY_PUBLIC_URL" });
    expect(cliBaseUrl({ launcher: "http://localhost:3130" })).toMatchObject({ url: "http://localhost:3130", guessed: false });
    const guessed = cliBaseUrl({ launcher: null });
    expect(guessed).toEqual({ url: "http://localhost:3000", from: "npm run dev's default address", guessed: true });
    expect(baseUrlNote(guessed)).toBe(
      "links start with http://localhost:3000 (from npm run dev's default address); if Tally runs elsewhere, pass --base-url <address> or set TALLY_PUBLIC_URL",
    );
    expect(baseUrlNote(cliBaseUrl(all))).toBe("links start with https://tally.example.com (from --base-url)");
  });

  it("refuses a --base-url that is not an http(s) address", () => {
    for (const option of ["tally.example.com", "ftp://tally.example.com", "https://", "https://tally.example.com?x=1", ""]) {
      expect(() => cliBaseUrl({ option })).toThrow(/--base-url must be an http:\/\/ or https:\/\/ address/);
    }
    expect(cliBaseUrl({ option: "http://10.0.0.5:8080/tally" }).url).toBe("http://10.0.0.5:8080/tally");
  });
});
