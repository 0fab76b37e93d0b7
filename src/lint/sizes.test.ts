// Every source file of Tally (src/, bench/, hostile/, e2e/) keeps to the lengths of sizes.ts or says why.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { unexplainedLengths } from "./sizes";

const sources = execFileSync("git", ["ls-files", "--", "src/*.ts", "src/*.tsx", "bench/*.ts", "hostile/*.ts", "e2e/*.ts"], { encoding: "utf8" })
  .split("\n")
  .filter((file) => file !== "" && !file.startsWith("src/server/db/generated/"));

const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join("\n");

describe("long files and functions", () => {
  it("say why they are long, everywhere in the tree", () => {
    expect(sources.length).toBeGreaterThan(200);
    const found = sources.flatMap((file) => unexplainedLengths(file, readFileSync(file, "utf8")));
    expect(found.map(({ file, line, lines, what }) => `${file}:${line} ${what} (${lines} lines)`)).toEqual([]);
  });

  it("are found: a long file, a long function declaration, a long arrow, with or without a reason", () => {
    const longFile = Array.from({ length: 301 }, () => "").join("\n");
    expect(unexplainedLengths("a.ts", longFile)).toMatchObject([{ what: "file", lines: 301 }]);
    expect(unexplainedLengths("a.ts", `// One file over 300 lines on purpose: a table.\n${longFile}`)).toEqual([]);
    expect(unexplainedLengths("a.ts", `function long() {\n${body(80)}\n}`)).toMatchObject([{ what: "function long", lines: 82 }]);
    expect(unexplainedLengths("a.ts", `function short() {\n${body(78)}\n}`)).toEqual([]);
    expect(unexplainedLengths("a.tsx", `export const Screen = () => {\n${body(80)}\n};`)).toMatchObject([{ what: "function Screen" }]);
    expect(unexplainedLengths("a.ts", `// Over 80 lines on purpose: one screen.\nexport const Screen = () => {\n${body(80)}\n};`)).toEqual([]);
    expect(unexplainedLengths("a.test.ts", `describe("x", () => {\n${body(90)}\n});`)).toEqual([]);
  });
});
