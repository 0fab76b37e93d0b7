// Tally's hand-written SQL lives in `*.sql.ts` files and is written with sql-template-tag's `sql`
// (or Prisma's tagged $queryRaw/$executeRaw): every value a named parameter, never a `$1` numbered
// by hand, never a text the caller glued together. What must go into a statement's text (a
// partition's name, a SET's value) goes through src/server/db/sql-literals.ts, which checks it.
// This test reads the sources of src/server and src/cli and holds them to that.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

// Converted separately: the report statements, the store's Postgres implementation and the
// export's batch readers still write their SQL as text with numbered placeholders.
const NOT_YET: RegExp[] = [];

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "generated" || entry.name === "node_modules" ? [] : sources(file);
    return file.endsWith(".ts") && !file.endsWith(".test.ts") && !NOT_YET.some((pattern) => pattern.test(file)) ? [file] : [];
  });
}

/** The code without its comments (a `//` inside a string may take the rest of its line: fewer findings, never more). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");

const FILES = [...sources("src/server"), ...sources("src/cli")].map((file) => ({ file, code: code(readFileSync(path.join(ROOT, file), "utf8")) }));

const findings = (test: (code: string) => boolean) => FILES.filter(({ code }) => test(code)).map(({ file }) => file);

describe("hand-written SQL", () => {
  it("finds the sources it checks", () => {
    expect(FILES.length).toBeGreaterThan(100);
    expect(FILES.map(({ file }) => file)).toContain("src/server/upkeep/day-partitions.sql.ts");
  });

  it("is never a string or template without the sql tag handed to query()", () => {
    expect(findings((c) => /\.query(?:<[^>]*>)?\(\s*["'`]/.test(c))).toEqual([]);
  });

  it("never goes through Prisma's unsafe raw queries", () => {
    expect(findings((c) => /\$(?:query|execute)RawUnsafe\b/.test(c))).toEqual([]);
  });

  it("never numbers its parameters by hand ($1)", () => {
    // After a word character it is no placeholder (an scrypt hash's "scrypt$32768$8$1$...").
    expect(findings((c) => /(?<![\w$])\$\d+\b/.test(c))).toEqual([]);
  });

  it("lives in *.sql.ts files", () => {
    expect(findings((c) => /\b(?:SELECT|INSERT INTO|UPDATE|DELETE FROM)\b/.test(c)).filter((file) => !file.endsWith(".sql.ts"))).toEqual([]);
  });
});
