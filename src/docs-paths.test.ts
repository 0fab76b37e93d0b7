// The docs are a newcomer's map: every source path they name must exist, so a file renamed or
// moved without its docs fails here rather than sending a reader nowhere.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");

function markdownUnder(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => path.join(folder, name));
}

const DOCS = ["README.md", "CONTRIBUTING.md", "bench/README.md", "bench/results.md", ...markdownUnder("docs")];

/** `src/…` paths as the docs write them, up to the first character no path of Tally's holds (`<`, `*`, a space, a backtick). */
function sourcePathsIn(text: string): string[] {
  const found = text.match(/\bsrc\/[\w.\-/[\]]+/g) ?? [];
  return [...new Set(found.map(trimmed))];
}

/** Without the punctuation of the sentence around it: a closing bracket only when the path opened none. */
function trimmed(named: string): string {
  const cut = named.replace(/[.,:;)]+$/, "");
  return cut.endsWith("]") && !cut.includes("[") ? trimmed(cut.slice(0, -1)) : cut;
}

describe("the docs", () => {
  it("read paths the way they are written", () => {
    expect(
      sourcePathsIn("see `src/server/pipeline/settle/stretch.ts`, and src/server/<domain>/ or src/app/dashboard/campaigns/[id]/page.tsx. [src/cli/app.ts]"),
    ).toEqual(["src/server/pipeline/settle/stretch.ts", "src/server/", "src/app/dashboard/campaigns/[id]/page.tsx", "src/cli/app.ts"]);
  });

  it.each(DOCS)("%s names only source files that exist", (doc) => {
    const missing = sourcePathsIn(readFileSync(path.join(ROOT, doc), "utf8")).filter((named) => !existsSync(path.join(ROOT, named)));
    expect(missing).toEqual([]);
  });
});
