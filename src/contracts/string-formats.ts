// String formats of the public schemas (conversion, beacon, ad query): what every string field
// may hold. Postgres `text` and `jsonb` cannot store NUL, and UTF-8 cannot encode a lone UTF-16
// surrogate half, so either would fail the whole transaction it was written in; ids also go into
// logs, CSV files and spreadsheets, where a control character is a trap. Ajv checks these as
// `format`s, so a refused string gets the schema's own 422 entry (`must match format "..."`).
import type { Ajv } from "ajv";

/** Ids (sessions, users, orders, SKUs, channels): no control characters (C0, DEL, C1) and no lone surrogate. */
export const IDENTIFIER_FORMAT = /^[^\p{Cc}\p{Cs}]*$/u;

/** Free text (city, state, brand, search terms): no NUL and no lone surrogate; tabs and new lines pass. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this format refuses.
export const TEXT_FORMAT = /^[^\u0000\p{Cs}]*$/u;

/** Registers Tally's string formats on an Ajv instance (the server's, and tests' own). */
export function addStringFormats(ajv: Ajv): Ajv {
  return ajv.addFormat("identifier", IDENTIFIER_FORMAT).addFormat("text", TEXT_FORMAT);
}
