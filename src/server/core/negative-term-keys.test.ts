import { describe, expect, it } from "vitest";
import { blockingKeys, negativeTermKey, PHRASE_MAX_WORDS } from "./negative-term-keys";
import { matchesNegativeTerm, type NegativeMatch, normaliseSearchTerm, SEARCH_TERM_MARKERS, SEARCH_TERM_MAX_LENGTH } from "./search-terms";

// A key lookup blocks exactly what matchesNegativeTerm blocks: the ad query relies on it.
const blocksByKey = (term: string, negative: { term: string; match: NegativeMatch }) => {
  const keys = blockingKeys(term);
  if (keys === null) return false;
  const key = negativeTermKey(negative);
  return negative.match === "exact" ? keys.exact === key : keys.keys.includes(key);
};

const TERMS = [
  "red running shoes sale",
  "running shoes",
  "running shoe",
  "shoes running",
  "running red shoes",
  "smart tv, 55",
  "tvs 55",
  "t-shirt branca",
  "t-shirt",
  "tv",
  "a--b a..b",
  "c++ 50% r$",
  "👩\u200D💻 notebook",
  "acucar organico 1kg",
];
const NEGATIVES = [
  "running shoes",
  "running",
  "shoes",
  "tv",
  "smart tv",
  "t-shirt",
  "shirt",
  "a b",
  "b a",
  "c++",
  "r$",
  "👩\u200D💻",
  "acucar organico",
  "sale",
];

describe("negative term keys", () => {
  it.each(TERMS)("block %s exactly as matchesNegativeTerm does", (term) => {
    for (const negative of [...NEGATIVES, ...TERMS]) {
      for (const match of ["exact", "phrase"] as const) {
        expect(blocksByKey(term, { term: negative, match }), `${match} ${negative}`).toBe(matchesNegativeTerm(term, { term: negative, match }));
      }
    }
  });

  it("keep an exact negative as it is and a phrase as its words", () => {
    expect(negativeTermKey({ term: "tv, led", match: "exact" })).toBe("tv, led");
    expect(negativeTermKey({ term: "tv, led", match: "phrase" })).toBe("tv led");
  });

  it("refuse a phrase of no words, or of more than PHRASE_MAX_WORDS", () => {
    expect(() => negativeTermKey({ term: "!!!", match: "phrase" })).toThrow(/add it as exact/);
    expect(negativeTermKey({ term: "!!!", match: "exact" })).toBe("!!!");
    const long = Array.from({ length: PHRASE_MAX_WORDS + 1 }, (_, i) => `w${i}`).join(" ");
    expect(() => negativeTermKey({ term: long, match: "phrase" })).toThrow(/at most 10 words/);
    expect(negativeTermKey({ term: long, match: "exact" })).toBe(long);
  });

  it("look nothing up for no term or a marker", () => {
    expect(blockingKeys(null)).toBeNull();
    for (const marker of Object.values(SEARCH_TERM_MARKERS)) expect(blockingKeys(marker)).toBeNull();
  });

  it("stay few for the longest term a shopper can send", () => {
    const term = normaliseSearchTerm("a ".repeat(200))!;
    expect(Array.from(term).length).toBeLessThanOrEqual(SEARCH_TERM_MAX_LENGTH);
    // Every run is the same words here; distinct one-letter words give the most.
    const distinct = normaliseSearchTerm(Array.from({ length: 40 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join(" "))!;
    expect(blockingKeys(term)!.keys.length).toBe(PHRASE_MAX_WORDS + 1);
    expect(blockingKeys(distinct)!.keys.length).toBe(356);
  });
});
