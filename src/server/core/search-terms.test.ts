// One file over 300 lines on purpose: one table per rule of the search terms (folding, length, each kind of private data, barcodes, negatives), read side by side.
import { describe, expect, it } from "vitest";
import { TallyError } from "./errors";
import {
  isSearchTermMarker,
  matchesNegativeTerm,
  type NegativeMatch,
  normaliseCategory,
  normaliseNegativeTerm,
  normaliseSearchTerm,
  RAW_TERM_READ_LIMIT,
  SEARCH_TERM_MARKERS,
  SEARCH_TERM_MAX_LENGTH,
  searchTermWords,
} from "./search-terms";

// Check digits computed here from the Receita Federal's rule, not taken from the code under test.
function mod11(body: string, firstWeight: number, wrapAt?: number): number {
  let weight = firstWeight;
  let sum = 0;
  for (const digit of body) {
    sum += Number(digit) * weight;
    weight = weight === 2 && wrapAt ? wrapAt : weight - 1;
  }
  return sum % 11 < 2 ? 0 : 11 - (sum % 11);
}

function cpf(base: string): string {
  const first = mod11(base, 10);
  return `${base}${first}${mod11(`${base}${first}`, 11)}`;
}

function formattedCpf(base: string): string {
  const digits = cpf(base);
  return `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6, 9)}-${digits.slice(9)}`;
}

function cnpj(base: string): string {
  const first = mod11(base, 5, 9);
  return `${base}${first}${mod11(`${base}${first}`, 6, 9)}`;
}

const { email, phone, nationalId, number } = SEARCH_TERM_MARKERS;

const FOLDING: Array<{ raw: string; term: string; why: string }> = [
  { raw: "Açúcar Orgânico", term: "acucar organico", why: "Portuguese accents and cedilla" },
  { raw: "Pão de Queijo", term: "pao de queijo", why: "Portuguese tilde" },
  { raw: "Niño Pequeño", term: "nino pequeno", why: "Spanish tilde" },
  { raw: "Crème Brûlée Noël", term: "creme brulee noel", why: "French grave, circumflex, diaeresis" },
  { raw: "ÉCRAN", term: "ecran", why: "capitals with accents" },
  { raw: "Cafe\u0301", term: "cafe", why: "an accent typed as a combining mark" },
  { raw: "ＴＶ ５５", term: "tv 55", why: "full-width letters and digits" },
  { raw: "Straße", term: "strasse", why: "ß always becomes ss" },
  { raw: "İstanbul", term: "istanbul", why: "dotted capital I lower-cases without a mark" },
  { raw: "ﬁlé", term: "file", why: "ligatures come apart" },
  { raw: "  smart\u00A0\u00A0tv\t55\n\r\npolegadas  ", term: "smart tv 55 polegadas", why: "NBSP, tabs and newlines are one space" },
  { raw: "tv\u3000\u2003led", term: "tv led", why: "ideographic and em spaces" },
  { raw: "ca\u200Bfe\u200Czi\u200Dnho\u2060\uFEFF", term: "cafezinho", why: "zero-width space, joiners, word joiner, BOM" },
  { raw: "\u202Etv\u202C \u200Fled\u200E", term: "tv led", why: "bidi overrides and marks" },
  { raw: "so\u00ADfa", term: "sofa", why: "soft hyphen" },
  { raw: "a\u0000b\u0007c\u007F", term: "abc", why: "control characters" },
  { raw: "tv\uD800 led", term: "tv led", why: "a lone surrogate" },
  { raw: "☕ café", term: "☕ cafe", why: "an emoji stays" },
  { raw: "👍🏽 curti", term: "👍🏽 curti", why: "a skin-tone modifier stays with its emoji" },
  { raw: "👩\u200D💻 notebook", term: "👩\u200D💻 notebook", why: "a joiner between pictographs stays" },
  { raw: "❤\uFE0F camisa", term: "❤ camisa", why: "the emoji variation selector is a mark and goes" },
  { raw: "한국 라면", term: "한국 라면", why: "Hangul syllables come back together" },
  { raw: "iPhone 15 128GB", term: "iphone 15 128gb", why: "short numbers stay" },
  { raw: "RTX 4090", term: "rtx 4090", why: "a four-digit model" },
  { raw: "kit 3 un", term: "kit 3 un", why: "a count" },
  { raw: "tv 55 polegadas 4k", term: "tv 55 polegadas 4k", why: "sizes" },
  { raw: "1234567", term: "1234567", why: "seven digits are not private" },
  { raw: "123-4567", term: "123-4567", why: "seven digits with a hyphen" },
  { raw: "leite (integral)", term: "leite integral", why: "parentheses become spaces" },
];

describe("normaliseSearchTerm folds", () => {
  it.each(FOLDING)("$raw to $term ($why)", ({ raw, term }) => {
    expect(normaliseSearchTerm(raw)).toBe(term);
  });

  it.each([null, undefined, "", "   ", "\t\n", "\u200B\u200D", "()", " ( ) "])("%j to null", (raw) => {
    expect(normaliseSearchTerm(raw)).toBeNull();
  });

  it("is idempotent", () => {
    for (const { raw } of FOLDING) {
      const term = normaliseSearchTerm(raw)!;
      expect(normaliseSearchTerm(term), raw).toBe(term);
    }
  });
});

describe("normaliseSearchTerm bounds the length", () => {
  const cases: Array<{ raw: string; term: string; why: string }> = [
    { raw: "sabonete ".repeat(12), term: Array(9).fill("sabonete").join(" "), why: "a space right at the limit" },
    { raw: `${"a".repeat(65)} ${"b".repeat(30)}`, term: "a".repeat(65), why: "the last space before the limit, within 20" },
    { raw: `${"a".repeat(50)} ${"b".repeat(50)}`, term: `${"a".repeat(50)} ${"b".repeat(29)}`, why: "no space in the last 20: a hard cut" },
    { raw: "x".repeat(200), term: "x".repeat(80), why: "one long word" },
    { raw: "E\u0301".repeat(100), term: "e".repeat(80), why: "counted after folding" },
    { raw: "😀".repeat(100), term: "😀".repeat(80), why: "code points, not UTF-16 units" },
    { raw: `a${"😀".repeat(100)}`, term: `a${"😀".repeat(79)}`, why: "a cut on an odd unit keeps the pair whole" },
    { raw: `${"a".repeat(79)} 😀`, term: "a".repeat(79), why: "trimmed after the cut" },
  ];

  it.each(cases)("$why", ({ raw, term }) => {
    const stored = normaliseSearchTerm(raw)!;
    expect(stored).toBe(term);
    expect(Array.from(stored).length).toBeLessThanOrEqual(SEARCH_TERM_MAX_LENGTH);
    expect(/\p{Cs}/u.test(stored)).toBe(false);
  });

  it("keeps a term of exactly the limit", () => {
    expect(normaliseSearchTerm("y".repeat(SEARCH_TERM_MAX_LENGTH))).toBe("y".repeat(SEARCH_TERM_MAX_LENGTH));
  });

  it("checks what is left after a cut too", () => {
    // The hard cut leaves "7891000100": ten bare digits read as a phone number.
    expect(normaliseSearchTerm(`${"a".repeat(70)}7891000100103`)).toBe(phone);
  });
});

const PRIVATE: Array<{ raw: string; marker: string; why: string }> = [
  { raw: "joao@example.com", marker: email, why: "an e-mail address" },
  { raw: "Joao.Silva+promo@mail.example.com.br", marker: email, why: "plus-addressing and subdomains" },
  { raw: "tênis nike maria_souza@gmail.com tamanho 40", marker: email, why: "words around an e-mail go too" },
  { raw: "ＪＯＡＯ＠ＥＸＡＭＰＬＥ．ＣＯＭ", marker: email, why: "a full-width e-mail, after folding" },
  { raw: "jo\u200Bao@exa\u200Dmple.com", marker: email, why: "an e-mail with zero-width characters" },
  { raw: "+55 11 91234-5678", marker: phone, why: "international Brazilian mobile" },
  { raw: "(11) 91234-5678", marker: phone, why: "area code in parentheses" },
  { raw: "11912345678", marker: phone, why: "eleven bare digits, not a CPF" },
  { raw: "1133334444", marker: phone, why: "ten bare digits" },
  { raw: "9123-4567", marker: phone, why: "a local number" },
  { raw: "91234 5678", marker: phone, why: "a local mobile with a space" },
  { raw: "+1 415 555 0100", marker: phone, why: "a US number" },
  { raw: "ligar 11 9 1234 5678 hoje", marker: phone, why: "words around a phone go too" },
  { raw: "٩١٢٣٤٥٦٧٨٩", marker: phone, why: "Arabic-Indic digits" },
  { raw: cpf("123456789"), marker: nationalId, why: "a bare CPF" },
  { raw: formattedCpf("123456789"), marker: nationalId, why: "a formatted CPF" },
  { raw: `cpf ${formattedCpf("529982247")} nota fiscal`, marker: nationalId, why: "a CPF among words" },
  { raw: "123.456.789-00", marker: phone, why: "a formatted CPF with wrong check digits is eleven digits" },
  { raw: "11111111111", marker: phone, why: "all-equal digits pass the check but are no CPF" },
  { raw: cnpj("112223330001"), marker: nationalId, why: "a bare CNPJ" },
  { raw: "11.222.333/0001-81", marker: nationalId, why: "a formatted CNPJ" },
  { raw: "11.222.333/0001-80", marker: number, why: "a formatted CNPJ with a wrong check digit" },
  { raw: "11222333000180", marker: number, why: "a bare CNPJ with a wrong check digit, not a GTIN-14 either" },
  { raw: "7891000100104", marker: number, why: "thirteen digits with a wrong GS1 check digit" },
  { raw: "96385075", marker: number, why: "eight digits with a wrong GS1 check digit" },
  { raw: "7891000100103 6", marker: number, why: "a barcode joined to another number is no longer bare" },
  { raw: "pedido 123456789", marker: number, why: "nine digits" },
  { raw: "03/12/2026", marker: number, why: "a date of eight digits" },
  { raw: "1234 5678 9012 3456", marker: number, why: "a card number" },
  { raw: "+55 11 91234-5678 1234 5678 9", marker: number, why: "more than 15 digits is no phone" },
  { raw: `${formattedCpf("529982247")} joao@example.com +55 11 91234-5678`, marker: nationalId, why: "a national id first" },
  { raw: "joao@example.com +55 11 91234-5678 123456789", marker: email, why: "then an e-mail" },
  { raw: "+55 11 91234-5678 pedido 123456789", marker: phone, why: "then a phone" },
];

describe("normaliseSearchTerm never keeps private data", () => {
  it.each(PRIVATE)("$raw becomes $marker ($why)", ({ raw, marker }) => {
    expect(normaliseSearchTerm(raw)).toBe(marker);
  });

  it.each([
    { raw: "7891000100103", why: "EAN-13" },
    { raw: "96385074", why: "GTIN-8" },
    { raw: "036000291452", why: "UPC-A (GTIN-12)" },
    { raw: "17891000100100", why: "GTIN-14" },
    { raw: "ean 7891000100103 sabao", why: "a barcode among words" },
  ])("keeps a bare barcode as typed: $raw ($why)", ({ raw }) => {
    expect(normaliseSearchTerm(raw)).toBe(raw);
  });

  it.each(["(email)", "(phone)", "(national id)", "(number)", "（ＥＭＡＩＬ）", "((email))", " (email) "])("never turns %j into a marker", (raw) => {
    const term = normaliseSearchTerm(raw);
    expect(term).toBe(
      raw
        .replace(/[()（）]/g, "")
        .trim()
        .normalize("NFKC")
        .toLowerCase(),
    );
    expect(isSearchTermMarker(term!)).toBe(false);
  });

  it("names each marker so that no other term can equal it", () => {
    for (const marker of Object.values(SEARCH_TERM_MARKERS)) {
      expect(isSearchTermMarker(marker)).toBe(true);
      expect(marker).toMatch(/[()]/);
      expect(normaliseSearchTerm(marker)).not.toBe(marker);
    }
  });
});

describe("normaliseCategory", () => {
  const cases: Array<{ raw: string; category: string; why: string }> = [
    { raw: "Eletrônicos > TVs", category: "eletronicos > tvs", why: "folded as terms are, the path's separator kept" },
    { raw: "  Mercearia \u00A0>\tDoces ", category: "mercearia > doces", why: "spaces collapsed and trimmed" },
    { raw: "ＴＶ\u200B ４Ｋ", category: "tv 4k", why: "width and invisible characters" },
    { raw: "100234567", category: "100234567", why: "a numeric id is kept, not a marker" },
    { raw: "11912345678", category: "11912345678", why: "eleven digits are an id here, not a phone" },
    { raw: "contato@example.com", category: "contato@example.com", why: "no private-data markers for a publisher's category" },
    { raw: "TVs (4K)", category: "tvs (4k)", why: "parentheses stay" },
    { raw: "(email)", category: "(email)", why: "a category may read like a marker" },
    { raw: "x".repeat(200), category: "x".repeat(SEARCH_TERM_MAX_LENGTH), why: "at most 80 code points" },
    { raw: `${"casa ".repeat(14)}jardim piscina`, category: `${"casa ".repeat(14)}jardim`, why: "cut at a space near the limit" },
    { raw: "😀".repeat(100), category: "😀".repeat(SEARCH_TERM_MAX_LENGTH), why: "code points, not UTF-16 units" },
  ];

  it.each(cases)("$why", ({ raw, category }) => {
    expect(normaliseCategory(raw)).toBe(category);
  });

  it("is null when nothing is left", () => {
    expect(normaliseCategory(undefined)).toBeNull();
    expect(normaliseCategory(null)).toBeNull();
    expect(normaliseCategory("")).toBeNull();
    expect(normaliseCategory(" \u200B\t ")).toBeNull();
  });

  it("leaves search terms as they were", () => {
    expect(normaliseSearchTerm("TVs (4K)")).toBe("tvs 4k");
    expect(normaliseSearchTerm("100234567")).toBe(number);
  });
});

describe("searchTermWords", () => {
  it.each([
    { term: "red running shoes", words: ["red", "running", "shoes"] },
    { term: "t-shirt d'agua 1.5l", words: ["t-shirt", "d'agua", "1.5l"] },
    { term: "...tv-- -led 'x'", words: ["tv", "led", "x"] },
    { term: "tv, led; 4k! sale?", words: ["tv", "led", "4k", "sale"] },
    { term: "c++ 50% r$", words: ["c++", "50", "r$"] },
    { term: "a--b a..b", words: ["a", "b", "a", "b"] },
    { term: "👩\u200D💻 notebook", words: ["👩\u200D💻", "notebook"] },
    { term: "", words: [] },
    { term: "!!!", words: [] },
  ])("splits $term", ({ term, words }) => {
    expect(searchTermWords(term)).toEqual(words);
  });
});

describe("matchesNegativeTerm", () => {
  const cases: Array<{ term: string; negative: string; match: NegativeMatch; blocks: boolean }> = [
    { term: "running shoes", negative: "running shoes", match: "exact", blocks: true },
    { term: "red running shoes", negative: "running shoes", match: "exact", blocks: false },
    { term: "running shoes", negative: "running", match: "exact", blocks: false },
    { term: "red running shoes sale", negative: "running shoes", match: "phrase", blocks: true },
    { term: "running shoes", negative: "running shoes", match: "phrase", blocks: true },
    { term: "running shoe", negative: "running shoes", match: "phrase", blocks: false },
    { term: "shoes running", negative: "running shoes", match: "phrase", blocks: false },
    { term: "running red shoes", negative: "running shoes", match: "phrase", blocks: false },
    { term: "tvs 55", negative: "tv", match: "phrase", blocks: false },
    { term: "smart tv 55", negative: "tv", match: "phrase", blocks: true },
    { term: "smart tv, 55", negative: "tv", match: "phrase", blocks: true },
    { term: "t-shirt", negative: "shirt", match: "phrase", blocks: false },
    { term: "t-shirt branca", negative: "t-shirt", match: "phrase", blocks: true },
    { term: "tv", negative: "smart tv", match: "phrase", blocks: false },
    { term: "!!!", negative: "!!!", match: "phrase", blocks: false },
    { term: "!!!", negative: "!!!", match: "exact", blocks: true },
    { term: email, negative: email, match: "exact", blocks: false },
    { term: phone, negative: "phone", match: "phrase", blocks: false },
    { term: nationalId, negative: "national id", match: "phrase", blocks: false },
    { term: "number", negative: number, match: "exact", blocks: false },
    { term: "my number", negative: number, match: "phrase", blocks: false },
  ];

  it.each(cases)("$match $negative on $term: $blocks", ({ term, negative, match, blocks }) => {
    expect(matchesNegativeTerm(term, { term: negative, match })).toBe(blocks);
  });

  it("blocks what shoppers type however they type it", () => {
    const negative = normaliseNegativeTerm("Açúcar  ORGÂNICO");
    expect(matchesNegativeTerm(normaliseSearchTerm("ACUCAR\u00A0organico 1kg")!, { term: negative, match: "phrase" })).toBe(true);
    expect(matchesNegativeTerm(normaliseSearchTerm("açúcar orgânico")!, { term: negative, match: "exact" })).toBe(true);
  });
});

describe("normaliseNegativeTerm", () => {
  it.each([
    { raw: "  Smart TV ", term: "smart tv" },
    { raw: "(email)", term: "email" },
    { raw: "7891000100103", term: "7891000100103" },
  ])("keeps $raw as $term", ({ raw, term }) => {
    expect(normaliseNegativeTerm(raw)).toBe(term);
  });

  it.each([
    { raw: "", message: /empty/ },
    { raw: " \u200B ", message: /empty/ },
    { raw: "()", message: /empty/ },
    { raw: "joao@example.com", message: /e-mail address/ },
    { raw: "(11) 91234-5678", message: /phone number/ },
    { raw: "11.222.333/0001-81", message: /CPF or CNPJ/ },
    { raw: "123456789", message: /long number/ },
  ])("refuses $raw", ({ raw, message }) => {
    let error: unknown;
    try {
      normaliseNegativeTerm(raw);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TallyError);
    expect((error as TallyError).code).toBe("bad_request");
    expect((error as TallyError).message).toMatch(message);
  });
});

describe("a raw term of any length", () => {
  it("is read up to RAW_TERM_READ_LIMIT characters only", () => {
    const words = "tv ".repeat(RAW_TERM_READ_LIMIT / 3);
    // Past the limit nothing is read, not even an address; before it, one is.
    expect(normaliseSearchTerm(`${words}joao@example.com`)).toBe(normaliseSearchTerm(words));
    expect(normaliseSearchTerm(`${"tv ".repeat(10)}joao@example.com`)).toBe(SEARCH_TERM_MARKERS.email);
    expect(normaliseSearchTerm("a@".repeat(50_000))).toBe(normaliseSearchTerm("a@".repeat(RAW_TERM_READ_LIMIT / 2)));
  });
});
