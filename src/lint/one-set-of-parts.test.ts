// Every screen in src/app shows loading, failure and emptiness through the shared parts, and lets
// tRPC infer its types (one-set-of-parts.ts).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { handWrittenParts } from "./one-set-of-parts";

const screens = execFileSync("git", ["ls-files", "--", "src/app/*.tsx", "src/app/*.ts"], { encoding: "utf8" })
  .split("\n")
  .filter((file) => file !== "" && !/\.test\.tsx?$/.test(file));

describe("one set of parts", () => {
  it("no screen writes a busy line, an empty paragraph, an alert or `as never` by hand", () => {
    expect(screens.length).toBeGreaterThan(50);
    const found = screens.flatMap((file) => handWrittenParts(file, readFileSync(file, "utf8")));
    expect(found.map(({ file, line, what }) => `${file}:${line} ${what}`)).toEqual([]);
  });

  it("finds each pattern, and leaves the parts themselves alone", () => {
    expect(handWrittenParts("src/app/x.tsx", '<p aria-busy="true">Loading</p>')).toMatchObject([{ line: 1 }]);
    expect(handWrittenParts("src/app/x.tsx", 'ok\n<p className="empty">None</p>')).toMatchObject([{ line: 2 }]);
    expect(handWrittenParts("src/app/x.tsx", '<p role="alert" className="error">x</p>')).toHaveLength(2);
    expect(handWrittenParts("src/app/x.tsx", "mutate(input as never)")).toMatchObject([{ what: expect.stringContaining("as never") }]);
    expect(handWrittenParts("src/app/problem.tsx", '<p role="alert" className="error">')).toEqual([]);
    expect(handWrittenParts("src/app/x.tsx", "<Problem message={m} />")).toEqual([]);
  });
});
