// Normalisation and SHA-256 of the identity fields of a conversion (docs/interface.md §2.3): the hashes
// only match a partner's hashes of the same person when both sides normalise alike, so the rules
// live in one module, with test vectors in docs/conversions.md. Dependency-free and built on Web
// Crypto (`globalThis.crypto.subtle`), so the browser SDK and Node servers (20+) share it.

export interface IdentityFields {
  email?: string | null;
  phone?: string | null;
  /** Individual or company tax identifier (CPF, CNPJ, SSN...). */
  taxId?: string | null;
  firstName?: string | null;
  lastName?: string | null;
}

export interface HashedIdentity {
  email_hashed?: string;
  phone_hashed?: string;
  social_id_hashed?: string;
  first_name_hashed?: string;
  last_name_hashed?: string;
}

export interface PhoneOptions {
  /** Calling code for numbers written without one, digits only ("55"); a leading "+" is accepted. */
  countryCode?: string;
}

const E164 = /^\+[1-9]\d{6,14}$/;

// Non-strings are refused rather than converted: a tax id or phone held as a number has already
// lost its leading zeros, and a wrong hash is worse than none.
const text = (s: unknown): string | null => (typeof s == "string" ? s : null);

/** Trimmed and lower-cased; null when empty. Dots and "+tags" stay: their meaning is per provider. */
export function normaliseEmail(s: string | null | undefined): string | null {
  const v = text(s);
  return (v && v.trim().toLowerCase()) || null;
}

/**
 * E.164 (`+` then 7 to 15 digits, the first not 0), or null when the input cannot be read as one.
 * National numbers (no `+`, no `00`) need `countryCode`; their leading zeros are a trunk prefix.
 */
export function normalisePhone(s: string | null | undefined, options?: PhoneOptions): string | null {
  const v = text(s);
  // Letters mean an extension or a scheme ("ext. 12", "tel:"): no safe way to read the number.
  if (!v || /\p{L}/u.test(v)) return null;
  // "+44 (0)20 ...": the "(0)" is the trunk prefix a caller inside the country would dial.
  let n = v.replace(/\(0\)/g, "").replace(/[^\d+]/g, "");
  if (/^00/.test(n)) n = "+" + n.slice(2);
  else if (n[0] != "+") {
    const cc = text(options && options.countryCode);
    const code = cc && cc.trim().replace(/^\+/, "");
    if (!code || !/^[1-9]\d{0,2}$/.test(code)) return null;
    n = "+" + code + n.replace(/^0+/, "");
  }
  return E164.test(n) ? n : null;
}

/** Digits only; null when there are none. */
export function normaliseTaxId(s: string | null | undefined): string | null {
  const v = text(s);
  return (v && v.replace(/\D/g, "")) || null;
}

/** Trimmed, runs of whitespace made one space; null when empty. Case and accents stay as typed. */
export function normaliseName(s: string | null | undefined): string | null {
  const v = text(s);
  return (v && v.trim().replace(/\s+/g, " ")) || null;
}

/** Lower-case hexadecimal SHA-256 of the UTF-8 bytes of `s`. */
export async function sha256Hex(s: string): Promise<string> {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  // Browsers expose crypto.subtle only to secure contexts (https, localhost).
  if (!subtle) throw new Error("no crypto.subtle (https only)");
  const digest = new Uint8Array(await subtle.digest("SHA-256", new TextEncoder().encode(s)));
  let hex = "";
  for (let i = 0; i < digest.length; i++) hex += (digest[i]! + 256).toString(16).slice(1);
  return hex;
}

/**
 * The `*_hashed` fields of a conversion for these identity fields. A field whose normalised value
 * is null is left out: the hash of "" would join every shopper without that field (the service
 * refuses it).
 */
export async function hashIdentity(fields: IdentityFields, options?: PhoneOptions): Promise<HashedIdentity> {
  const f = fields || {};
  const values: [keyof HashedIdentity, string | null][] = [
    ["email_hashed", normaliseEmail(f.email)],
    ["phone_hashed", normalisePhone(f.phone, options)],
    ["social_id_hashed", normaliseTaxId(f.taxId)],
    ["first_name_hashed", normaliseName(f.firstName)],
    ["last_name_hashed", normaliseName(f.lastName)],
  ];
  const hashed: HashedIdentity = {};
  for (const [key, value] of values) if (value) hashed[key] = await sha256Hex(value);
  return hashed;
}
