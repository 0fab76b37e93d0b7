// Search terms of the ad query (POST /v1/ads `term`): what the shopper searched, in the one form
// Tally keeps beside every ad served, groups in the search-term report and matches against an
// advertiser's negative terms. Shoppers type e-mail addresses, phone numbers and CPFs into search
// boxes; a term that holds any of them is never stored as typed: the whole term becomes a marker,
// because the words around a phone number ("joao silva 11 91234-5678") identify as much as it does.
//
// Folding is deliberately coarse (accents, case, width and invisible characters all go) so that
// what a shopper means once is reported once and a negative term blocks every way of typing it.
// Marks go in every script, so Devanagari or Thai vowel signs are lost too: terms and negatives fold
// alike, so matching stays exact, at the cost of a few terms merging in the report.
// Emoji stay, but without variation selectors (marks) and tag characters (format characters); a
// zero-width joiner is kept only between two pictographs, so "👩‍💻" stays one emoji.

import { TallyError } from "./errors";

/** Most code points a stored term has: enough for any real query, short enough to group them. */
export const SEARCH_TERM_MAX_LENGTH = 80;

// A cut this close to the limit still keeps most of the term; further back, a hard cut keeps more.
const WORD_CUT_WINDOW = 20;

/**
 * What a term holding private data is stored as. Each holds "(" and ")", which normalisation turns
 * into spaces in every other term, so no shopper can type a marker.
 */
export const SEARCH_TERM_MARKERS = {
  nationalId: "(national id)",
  email: "(email)",
  phone: "(phone)",
  number: "(number)",
} as const;

export type PrivateDataKind = keyof typeof SEARCH_TERM_MARKERS;
export type SearchTermMarker = (typeof SEARCH_TERM_MARKERS)[PrivateDataKind];

// Key order of SEARCH_TERM_MARKERS: the most specific reading of the term names its marker.
const PRECEDENCE = Object.keys(SEARCH_TERM_MARKERS) as PrivateDataKind[];
const MARKERS = new Set<string>(Object.values(SEARCH_TERM_MARKERS));

export function isSearchTermMarker(term: string): term is SearchTermMarker {
  return MARKERS.has(term);
}

// Cc, Cf (zero-width spaces and joiners, bidi controls, soft hyphens, BOM) and lone surrogates, which
// would otherwise let the same visible term be stored many ways or hide digits from the checks
// below; a zero-width joiner between two pictographs is part of one emoji.
const INVISIBLE = /(?<!\p{Extended_Pictographic}\p{Emoji_Modifier}?)\u200D|\u200D(?!\p{Extended_Pictographic})|[^\P{Cf}\u200D]|[\p{Cc}\p{Cs}]/gu;

function fold(raw: string): string {
  return (
    raw
      .normalize("NFKD")
      // NFKD can give capitals ("㎒" → "MHz") and lower-casing can give marks ("İ" → "i̇"): both ways.
      .toLowerCase()
      .normalize("NFKD")
      .replace(/\p{M}+/gu, "")
      .replace(/ß/g, "ss")
      // NFC puts Hangul syllables back together after NFKD took them apart.
      .normalize("NFC")
      // Before INVISIBLE: tabs and newlines are Cc, and must part words rather than join them.
      .replace(/\p{White_Space}+/gu, " ")
      .replace(INVISIBLE, "")
      .replace(/ {2,}/g, " ")
      .trim()
  );
}

/** Characters of a raw term read at most: a few times what is kept, so private data straddling the cap is still found. */
export const RAW_TERM_READ_LIMIT = 1_000;

/**
 * The term as Tally stores and reports it, or null when nothing is left: folded (NFKD without marks,
 * lower case, ß as "ss", NFC), without control or format characters, spaces collapsed, "(" and ")"
 * turned into spaces, at most SEARCH_TERM_MAX_LENGTH code points (cut at a space when one falls in
 * the last 20), or one of SEARCH_TERM_MARKERS when it holds private data. Only the first
 * RAW_TERM_READ_LIMIT characters are read (the ad query takes 200).
 */
export function normaliseSearchTerm(raw: string | null | undefined): string | null {
  const folded = foldedPrefix(raw);
  if (folded === null) return null;
  const found = privateDataIn(folded);
  if (found) return SEARCH_TERM_MARKERS[found];
  const plain = folded.replace(/[()]/g, " ").replace(/ {2,}/g, " ").trim();
  if (plain === "") return null;
  const term = capLength(plain);
  // A hard cut can leave the first digits of a barcode, which then read as a phone number: what is
  // stored must pass the same checks as what was typed.
  const cut = privateDataIn(term);
  return cut ? SEARCH_TERM_MARKERS[cut] : term;
}

/**
 * A page's category (POST /v1/ads `category`) as Tally stores it beside every ad, or null when
 * nothing is left: folded and cut as search terms are, but kept whole otherwise. A category comes
 * from the publisher's page, not from what a shopper typed, so it is not searched for private data
 * (its numeric ids, "100234567", are kept) and its parentheses stay ("tvs (4k)").
 */
export function normaliseCategory(raw: string | null | undefined): string | null {
  const folded = foldedPrefix(raw);
  return folded === null ? null : capLength(folded);
}

// The first RAW_TERM_READ_LIMIT characters folded, or null when nothing is left: the checks on a
// term look at the whole text, so their work is bounded by this many characters whatever a caller
// passes (the ad query already refuses terms and categories over 200).
function foldedPrefix(raw: string | null | undefined): string | null {
  if (raw == null) return null;
  const folded = fold(raw.slice(0, RAW_TERM_READ_LIMIT));
  return folded === "" ? null : folded;
}

function capLength(term: string): string {
  // Code points, so a cut never leaves half a surrogate pair.
  const points = Array.from(term);
  if (points.length <= SEARCH_TERM_MAX_LENGTH) return term;
  // Index SEARCH_TERM_MAX_LENGTH itself: a space right after the limit makes the limit a word boundary.
  const space = points.slice(0, SEARCH_TERM_MAX_LENGTH + 1).lastIndexOf(" ");
  const end = space >= SEARCH_TERM_MAX_LENGTH - WORD_CUT_WINDOW ? space : SEARCH_TERM_MAX_LENGTH;
  return points.slice(0, end).join("").trim();
}

// Shape only: one character before "@" is enough to make the term someone's address.
const EMAIL = /[\p{L}\p{N}._%+'-]@(?:[\p{L}\p{N}-]+\.)+\p{L}{2,}/u;

// Digits joined by single separators, as numbers are typed: "+55 (11) 91234-5678", "123.456.789-09".
const DIGIT_RUN = /\+?\(?\d+(?:(?:\)[ -]?|[ ./-]\(?|\()\d+)*/g;

const LOCAL_PHONE = /^\d{4,5}[ -]\d{4}$/;
const BARCODE_LENGTHS = new Set([8, 12, 13, 14]);

/** Which private data a folded term holds, the most specific when it holds several; null for none. */
function privateDataIn(folded: string): PrivateDataKind | null {
  const text = asciiDigits(folded);
  const found = new Set<PrivateDataKind>();
  if (text.includes("@") && EMAIL.test(text)) found.add("email");
  for (const [run] of text.matchAll(DIGIT_RUN)) {
    const kind = classifyDigitRun(run);
    if (kind) found.add(kind);
  }
  return PRECEDENCE.find((kind) => found.has(kind)) ?? null;
}

function classifyDigitRun(run: string): PrivateDataKind | null {
  const digits = run.replace(/\D/g, "");
  const count = digits.length;
  if (count < 8) return null;
  if (count === 11 && isCpf(digits)) return "nationalId";
  if (count === 14 && isCnpj(digits)) return "nationalId";
  // Only typed bare: a barcode is scanned or copied, never written in groups.
  const bare = digits === run;
  if (bare && BARCODE_LENGTHS.has(count) && hasGs1CheckDigit(digits)) return null;
  const phoneShaped = run.startsWith("+") || /[()]/.test(run) || count === 10 || count === 11 || LOCAL_PHONE.test(run);
  if (phoneShaped && count <= 15) return "phone";
  return "number";
}

// NFKD maps full-width and mathematical digits to ASCII but not other scripts' (Arabic-Indic
// "٩١٢٣٤٥٦٧٨", Devanagari): a phone number typed in them is as private.
function asciiDigits(text: string): string {
  return text.replace(/[^\P{Nd}0-9]/gu, (digit) => String(digitValue(digit.codePointAt(0)!)));
}

// Unicode encodes every decimal digit in runs of ten from zero, so the value is the distance from the
// start of the run, modulo ten where runs of ten follow each other.
function digitValue(codePoint: number): number {
  let zero = codePoint;
  while (/\p{Nd}/u.test(String.fromCodePoint(zero - 1))) zero -= 1;
  return (codePoint - zero) % 10;
}

function isCpf(digits: string): boolean {
  // All-equal digits pass the check digits but are not CPFs (the Receita Federal refuses them).
  if (/^(\d)\1*$/.test(digits)) return false;
  return (
    mod11CheckDigit(digits.slice(0, 9), [10, 9, 8, 7, 6, 5, 4, 3, 2]) === Number(digits[9]) &&
    mod11CheckDigit(digits.slice(0, 10), [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]) === Number(digits[10])
  );
}

function isCnpj(digits: string): boolean {
  if (/^(\d)\1*$/.test(digits)) return false;
  const weights = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  return mod11CheckDigit(digits.slice(0, 12), weights.slice(1)) === Number(digits[12]) && mod11CheckDigit(digits.slice(0, 13), weights) === Number(digits[13]);
}

function mod11CheckDigit(body: string, weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < body.length; i += 1) sum += Number(body[i]) * weights[i]!;
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** GTIN-8, -12, -13 and -14 (EAN, UPC): weights 3 and 1 from the digit left of the check digit. */
function hasGs1CheckDigit(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 2, weight = 3; i >= 0; i -= 1, weight = 4 - weight) sum += Number(digits[i]) * weight;
  return (10 - (sum % 10)) % 10 === Number(digits[digits.length - 1]);
}

// Word characters: anything but white space and punctuation, so letters, digits, symbols and emoji.
// A hyphen, apostrophe or dot between two of them stays inside the word ("t-shirt", "d'agua", "1.5").
const WORD_SEPARATORS = /(?<![^\s\p{P}])[-'.’]|[-'.’](?![^\s\p{P}])|[^\P{P}'.’-]/gu;

/** The words of a normalised term, in order: what phrase negatives are matched against. */
export function searchTermWords(term: string): string[] {
  return term
    .replace(WORD_SEPARATORS, " ")
    .split(" ")
    .filter((word) => word !== "");
}

export type NegativeMatch = "exact" | "phrase";

export interface NegativeTerm {
  term: string;
  match: NegativeMatch;
}

/**
 * Whether a negative term blocks a search term, both already normalised. exact: the same term.
 * phrase: the negative's words, contiguous and in order, among the term's words ("running shoes"
 * blocks "red running shoes sale", not "running shoe", "shoes running" nor, for "tv", "tvs").
 * A marker is never matched and never matches: private data says nothing of what was searched.
 */
export function matchesNegativeTerm(term: string, negative: NegativeTerm): boolean {
  if (isSearchTermMarker(term) || isSearchTermMarker(negative.term)) return false;
  if (negative.match === "exact") return term === negative.term;
  const words = searchTermWords(term);
  const phrase = searchTermWords(negative.term);
  if (phrase.length === 0) return false;
  for (let start = 0; start + phrase.length <= words.length; start += 1) {
    if (phrase.every((word, i) => words[start + i] === word)) return true;
  }
  return false;
}

const PRIVATE_DATA_NAMES: Record<PrivateDataKind, string> = {
  nationalId: "a CPF or CNPJ",
  email: "an e-mail address",
  phone: "a phone number",
  number: "a long number",
};

/**
 * A negative term as an advertiser typed it, normalised as search terms are; refuses (TallyError
 * bad_request) one that leaves nothing, or that holds private data, since it could never match a
 * stored term and Tally would have to keep it as typed.
 */
export function normaliseNegativeTerm(raw: string): string {
  const term = normaliseSearchTerm(raw);
  if (term === null) throw new TallyError("bad_request", "negative term is empty: it needs at least one letter, digit or symbol");
  for (const kind of PRECEDENCE) {
    if (term === SEARCH_TERM_MARKERS[kind]) {
      throw new TallyError(
        "bad_request",
        `negative term holds ${PRIVATE_DATA_NAMES[kind]}: search terms holding one are never stored, so it could never match`,
      );
    }
  }
  return term;
}
