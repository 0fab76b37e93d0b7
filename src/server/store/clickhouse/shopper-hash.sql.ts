// Hand-written SQL: the shopper hash of core/shopper-sample.ts in ClickHouse: the first 8 bytes of
// the String's SHA-256 as an Int64. reinterpretAsInt64 reads its bytes little-endian, and the
// hash is their big-endian reading, hence the reverse. `text` is an SQL expression from fixed
// code, never a value.
export const clickhouseShopperHash = (text: string): string => `reinterpretAsInt64(reverse(substring(SHA256(${text}), 1, 8)))`;
