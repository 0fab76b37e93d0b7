// The body of `POST /v1/beacon/conversion` as a JSON Schema: a public contract. The server
// compiles it with Ajv (src/server/pipeline/accept/conversions/), the browser SDK takes its TypeScript type
// (type-only import: nothing of this file reaches the bundle), docs/conversions.md describes it
// field by field (a test keeps the two equal).
import type { FromSchema } from "json-schema-to-ts";

/** SHA-256 of the empty string: what a client sends when it hashes a field it does not have. */
export const EMPTY_STRING_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// A hashed identity field: hexadecimal SHA-256 of the normalised value (docs/interface.md §2.3). The hash
// of "" is refused, in either case, because it carries no identity and would join every shopper
// whose client hashed a missing value.
const hashedField = {
  type: "string",
  pattern: "^[0-9a-fA-F]{64}$",
  not: { enum: [EMPTY_STRING_SHA256, EMPTY_STRING_SHA256.toUpperCase()] },
} as const;

const identifier = { type: "string", minLength: 1, maxLength: 256, format: "identifier" } as const;
const optionalIdentifier = { type: ["string", "null"], maxLength: 256, format: "identifier" } as const;

// Ranges chosen so that no sum Tally keeps can overflow a PostgreSQL bigint of micro-units
// (9.22 × 10^18): a unit price is at most 10^12 micro-units, a line (price × quantity) at most
// 10^16, and a whole order of MAX_ORDER_ITEMS lines at most 5 × 10^18. Sums over many orders (a
// day's sales) are kept as numeric (docs/decisions/0008-amount-bounds.md).
/** Most lines in one order; checked before the schema runs, so a huge items array costs nothing. */
export const MAX_ORDER_ITEMS = 500;
/** Highest unit price (list or paid), in currency units: 1,000,000. */
export const MAX_UNIT_PRICE = 1_000_000;
/** Most units of one line (fractions allowed): 10,000. */
export const MAX_QUANTITY = 10_000;
/** How far ahead of Tally's clock an order's created_at may be (seconds): a client's clock drift. */
export const CREATED_AT_MAX_AHEAD_SECONDS = 5 * 60;
/** How far back an order's created_at may be (seconds): the 30-day de-duplication window. */
export const CREATED_AT_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

const money = { type: "number", minimum: 0, maximum: MAX_UNIT_PRICE } as const;

/** One order line (docs/interface.md §2.4). Prices are per unit. */
export const conversionItemSchema = {
  type: "object",
  properties: {
    sku: identifier,
    quantity: { type: "number", exclusiveMinimum: 0, maximum: MAX_QUANTITY },
    price: money,
    promotional_price: money,
    seller_id: optionalIdentifier,
    product_id: optionalIdentifier,
  },
  required: ["sku", "quantity", "price", "promotional_price"],
} as const;

/**
 * Body of `POST /v1/beacon/conversion` (docs/interface.md §2.3): the one source of the validator, the
 * TypeScript type and docs/conversions.md. Properties not listed are ignored, as the decisions
 * ask. Three rules need the database or the clock and are added to Ajv's entries by the server
 * (src/server/pipeline/accept/conversions/record-conversion.ts): a known `publisher_id`, `brand` for a publisher
 * with several sites, and a `created_at` within CREATED_AT_MAX_AGE_SECONDS before and
 * CREATED_AT_MAX_AHEAD_SECONDS after the moment the order arrives.
 */
export const conversionBodySchema = {
  type: "object",
  properties: {
    publisher_id: identifier,
    user_id: identifier,
    session_id: identifier,
    order_id: identifier,
    // ISO 8601 with a time zone; "Z" is what the interface asks, an offset is converted to UTC.
    created_at: { type: "string", format: "date-time" },
    items: { type: "array", minItems: 1, maxItems: MAX_ORDER_ITEMS, items: conversionItemSchema },
    channel: { type: "string", minLength: 1, maxLength: 64, format: "identifier" },
    brand: { type: "string", minLength: 1, maxLength: 256, format: "text" },
    gender: { type: ["string", "null"], enum: ["F", "M", "O", null] },
    uf: { type: "string", maxLength: 64, format: "text" },
    city: { type: "string", maxLength: 128, format: "text" },
    is_company: { type: "boolean" },
    email_hashed: hashedField,
    phone_hashed: hashedField,
    social_id_hashed: hashedField,
    first_name_hashed: hashedField,
    last_name_hashed: hashedField,
    // Proof that the publisher's server saw this order: hexadecimal HMAC-SHA256 of
    // orderTokenMessage() (order-token.ts) under the publisher's signing secret.
    order_token: { type: "string", pattern: "^[0-9a-fA-F]{64}$" },
  },
  required: ["publisher_id", "user_id", "session_id", "order_id", "created_at", "items", "channel", "email_hashed"],
} as const;

// Extra properties are allowed (and ignored), so FromSchema adds `[key: string]: unknown`; the
// named fields are what callers should see, so the index signature is left out of the types.
type KnownFields<T> = { [K in keyof T as string extends K ? never : K]: T[K] };

export type ConversionItemBody = KnownFields<FromSchema<typeof conversionItemSchema>>;
export type ConversionBody = Omit<KnownFields<FromSchema<typeof conversionBodySchema>>, "items"> & { items: ConversionItemBody[] };
