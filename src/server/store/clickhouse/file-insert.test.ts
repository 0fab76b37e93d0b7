import { describe, expect, it } from "vitest";
import { fileInsertStatement, literal } from "./file-insert.sql";

describe("an insert through a file", () => {
  it("quotes settings and the path as literals, a quote or backslash in them escaped", () => {
    expect(literal(0)).toBe("0");
    expect(literal("ad_events:1-32:ab")).toBe("'ad_events:1-32:ab'");
    expect(literal(String.raw`/data/o'brien\x.tsv`)).toBe(String.raw`'/data/o\'brien\\x.tsv'`);
    expect(fileInsertStatement("ad_events", ["event_id", "kind"], { insert_deduplication_token: "t'1", async_insert: 0 }, "/d/f.tsv")).toBe(
      String.raw`INSERT INTO ad_events (event_id, kind) SETTINGS insert_deduplication_token = 't\'1', async_insert = 0 SELECT * FROM file('/d/f.tsv', 'TabSeparated')`,
    );
  });
});
