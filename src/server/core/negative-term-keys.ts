// How the ad query finds the negative terms that block a search term without reading a campaign's
// whole list: each negative term is kept under one key, and a search term is looked up under the
// few keys that could block it, so the query's cost does not grow with a campaign's terms.
// exact: the term itself. phrase: the negative's words joined by single spaces, which equals one
// run of the search term's consecutive words, so joined, exactly when matchesNegativeTerm blocks
// (searchTermWords never leaves a space inside a word).
import { TallyError } from "./errors";
import { isSearchTermMarker, type NegativeTerm, searchTermWords } from "./search-terms";

/**
 * Most words a phrase negative term has. A search term has at most 40 words (80 code points), so
 * this bounds the runs one ad query looks up to 355 rather than 820, and a longer phrase is a
 * sentence a shopper hardly types twice: an exact negative blocks it.
 */
export const PHRASE_MAX_WORDS = 10;

/** The key a normalised negative term is kept under; refuses (bad_request) a phrase that can never block. */
export function negativeTermKey(negative: NegativeTerm): string {
  if (negative.match === "exact") return negative.term;
  const words = searchTermWords(negative.term);
  if (words.length === 0) {
    throw new TallyError("bad_request", "a phrase negative term needs a word of letters, digits or symbols: add it as exact instead");
  }
  if (words.length > PHRASE_MAX_WORDS) {
    throw new TallyError("bad_request", `a phrase negative term has at most ${PHRASE_MAX_WORDS} words: add a longer one as exact instead`);
  }
  return words.join(" ");
}

export interface BlockingKeys {
  /** The term itself: what an exact negative term must be. */
  exact: string;
  /** `exact` and every run of up to PHRASE_MAX_WORDS consecutive words, each once. */
  keys: string[];
}

/**
 * The keys under which a negative term blocks this normalised search term: an exact negative
 * under `exact`, a phrase negative under any of `keys` (a phrase's key that equals the term is
 * the run of all its words, so `exact` among them blocks no phrase the runs would not); null
 * when nothing can block it (no term, or a private-data marker).
 */
export function blockingKeys(term: string | null): BlockingKeys | null {
  if (term === null || isSearchTermMarker(term)) return null;
  const words = searchTermWords(term);
  const keys = new Set<string>([term]);
  for (let start = 0; start < words.length; start += 1) {
    for (let end = start + 1; end <= Math.min(words.length, start + PHRASE_MAX_WORDS); end += 1) keys.add(words.slice(start, end).join(" "));
  }
  return { exact: term, keys: [...keys] };
}
