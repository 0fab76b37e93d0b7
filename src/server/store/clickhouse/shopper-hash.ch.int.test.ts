// The shopper hash (core/shopper-sample.ts) computed by Node, Postgres and ClickHouse alike, so
// that rows either store writes, or recomputes from its own history, fall in the same reach sample.
import sql, { raw } from "sql-template-tag";
import { describe, expect, it } from "vitest";
import { shopperHash, shopperKey } from "@/server/core/shopper-sample";
import { pgPool } from "@/server/db/pg-pool";
import { postgresShopperHash } from "@/server/store/postgres/shopper-hash.sql";
import { selectRows } from "./client";
import { clickhouseShopperHash } from "./shopper-hash.sql";

const KEYS = [
  shopperKey("pub-1", "u-1", "s-1"),
  shopperKey("bpub-1", null, "s-42-20000"),
  shopperKey("pub-ß", "joão 🛒", "s"),
  shopperKey("ｆｕｌｌ", "用户-٣", "s"), // full-width and non-Latin digits
  shopperKey("p", "𝔘𝔰𝔢𝔯 \u00a0 ünïcödé", "s"), // astral letters, a no-break space, accents
  shopperKey("p", "x".repeat(256), "s"),
  ...Array.from({ length: 200 }, (_, i) => shopperKey(`pub-${i % 7}`, i % 3 === 0 ? null : `u-${i}`, `s-${i}`)),
].map(({ text }) => text);

describe("the shopper hash", () => {
  it("is the same in Node, Postgres and ClickHouse, the sign and the top bit included", async () => {
    const inNode = KEYS.map((text) => shopperHash(text).toString());
    const { rows } = await pgPool().query<{ hash: string }>(
      sql`SELECT ${raw(postgresShopperHash("k.text"))}::text AS hash FROM unnest(${KEYS}::text[]) WITH ORDINALITY AS k(text, n) ORDER BY k.n`,
    );
    const inClickhouse = await selectRows<{ hash: string }>(
      `SELECT toString(${clickhouseShopperHash("text")}) AS hash FROM (SELECT arrayJoin(arrayEnumerate({keys:Array(String)})) AS n, {keys:Array(String)}[n] AS text) ORDER BY n`,
      { keys: KEYS },
    );
    expect(rows.map(({ hash }) => hash)).toEqual(inNode);
    expect(inClickhouse.map(({ hash }) => hash)).toEqual(inNode);
    // Both signs occur, so a reading of the wrong endianness or sign would show.
    expect(inNode.some((hash) => hash.startsWith("-"))).toBe(true);
    expect(inNode.some((hash) => !hash.startsWith("-"))).toBe(true);
  });
});
