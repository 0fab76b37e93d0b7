// The binary array parameters read back in Postgres as the same values the text format gave.
import { describe, expect, it } from "vitest";
import { boolArray, int2Array, textArray, timestamptzArray, uuidArray } from "./binary-arrays";
import { pgPool } from "./pg-pool";

describe("binary array parameters", () => {
  it("carry text (with NULLs, multi-byte and empty strings), smallints, booleans, UUIDs and timestamps", async () => {
    const texts = ["plain", null, "", "ação ✓ 𝄞", 'quote " and \\ and , and {}'];
    const shorts = [0, 15, -1, 32767];
    const bools = [true, false];
    const uuids = ["0190b3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d", "FFFFFFFF-0000-4000-8000-000000000001"];
    const times = [new Date("2026-11-25T10:11:12.345Z"), null, new Date("1999-12-31T23:59:59.999Z")];
    const { rows } = await pgPool().query(
      `SELECT $1::text[] AS texts, $2::smallint[] AS shorts, $3::boolean[] AS bools, $4::uuid[]::text[] AS uuids,
              $5::timestamptz[] AS times, $6::text[] = $7::text[] AS same_as_text`,
      [textArray(texts), int2Array(shorts), boolArray(bools), uuidArray(uuids), timestamptzArray(times), textArray(texts), texts],
    );
    expect(rows[0]).toEqual({
      texts,
      shorts,
      bools,
      uuids: uuids.map((u) => u.toLowerCase()),
      times,
      same_as_text: true,
    });
  });

  it("an empty array", async () => {
    const { rows } = await pgPool().query("SELECT cardinality($1::text[]) AS n", [textArray([])]);
    expect(rows[0].n).toBe(0);
  });

  it("refuses what is no UUID or no time, rather than send bytes Postgres would take", () => {
    expect(() => uuidArray(["not-a-uuid"])).toThrow(TypeError);
    expect(() => timestamptzArray([new Date(Number.NaN)])).toThrow(RangeError);
  });

  it("a NUL in a text is refused by Postgres as a data error (22021), as in the text format", async () => {
    await expect(pgPool().query("SELECT $1::text[]", [textArray(["a\u0000b"])])).rejects.toMatchObject({ code: "22021" });
  });
});
