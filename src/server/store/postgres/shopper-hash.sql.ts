// Hand-written SQL: the shopper hash of core/shopper-sample.ts in Postgres (11 or later, whose
// sha256 takes bytea): the first 8 bytes of the UTF-8 text's SHA-256 as a signed bigint, read
// big-endian through bit(64). `text` is an SQL expression from fixed code, never a value.
export const postgresShopperHash = (text: string): string =>
  `('x' || encode(substring(sha256(convert_to(${text}, 'UTF8')) FROM 1 FOR 8), 'hex'))::bit(64)::bigint`;
