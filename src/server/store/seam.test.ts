// The store is the only way in: no route, procedure, job or other domain calls the Postgres
// store's functions directly, so another store can replace them (store.ts).
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { postgresStore } from "@/server/store/postgres/postgres-store";

// The folders that implement the Postgres store's operations, and the store itself.
const IMPLEMENTATION = [
  "src/server/store/",
  "src/server/pipeline/report/",
  "src/server/store/postgres/settle-beacons.sql.ts",
  "src/server/pipeline/accept/conversions/",
  "src/server/store/postgres/attribute-batch.sql.ts",
];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(full);
      return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
    }),
  );
  return files.flat();
}

/** The value (not type) names a file imports, from every `import { ... } from` statement. */
function importedValues(source: string): string[] {
  const names: string[] = [];
  for (const match of source.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+"[^"]+"/g)) {
    if (match[1]) continue;
    for (const part of match[2]!.split(",")) {
      const name = part.trim();
      if (name === "" || name.startsWith("type ")) continue;
      names.push(name.split(/\s+as\s+/)[0]!.trim());
    }
  }
  return names;
}

describe("the store seam", () => {
  it("is the only caller of the Postgres store's operations outside their own folders", async () => {
    const operations = new Set([...Object.values(postgresStore.settled), ...Object.values(postgresStore.reports)].map((fn) => fn.name));
    expect(operations).toContain("storeBeacons");
    expect(operations).toContain("campaignListingStatement");
    expect(operations.size).toBe(13);

    const offenders: string[] = [];
    for (const file of await sourceFiles("src")) {
      if (IMPLEMENTATION.some((prefix) => file.startsWith(prefix))) continue;
      const direct = importedValues(await readFile(file, "utf8")).filter((name) => operations.has(name));
      if (direct.length > 0) offenders.push(`${file}: ${direct.join(", ")}`);
    }
    expect(offenders).toEqual([]);
  });

  it("finds a direct call when there is one", () => {
    expect(importedValues('import { campaignListingStatement, type X } from "@/server/store/postgres/campaign-listing.sql";')).toEqual([
      "campaignListingStatement",
    ]);
    expect(importedValues('import type { LoggedBeacon } from "@/server/store/settle-types";')).toEqual([]);
  });
});
