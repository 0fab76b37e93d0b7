// The layering check of src/server/ (layers.ts): the real tree passes it, and each kind of wrong
// import fails it, named by file.
import { describe, expect, it } from "vitest";
import { serverSources } from "./check-layers";
import { checkLayers, type SourceFile } from "./layers";

const file = (path: string, ...imports: string[]): SourceFile => ({ path, text: imports.map((from) => `import { x } from "${from}";`).join("\n") });
const messages = (files: SourceFile[]) => checkLayers(files).map(({ file, message }) => `${file}: ${message}`);

describe("the layers of src/server/", () => {
  it("hold in the tree as it is", async () => {
    const files = await serverSources();
    expect(files.length).toBeGreaterThan(100);
    expect(messages(files)).toEqual([]);
  });

  it.each([
    ["a pipeline file that imports the transport", file("pipeline/settle/stretch.ts", "@/server/http/respond"), /pipeline\/settle\/ is below http\//],
    ["core importing a pipeline file", file("core/days.ts", "@/server/pipeline/accept/beacons/record-beacon"), /core\/ is below pipeline\/accept\//],
    ["the store importing a stage", file("store/store.ts", "@/server/pipeline/report/report-scope"), /store\/ is below pipeline\/report\//],
    ["a relative import that climbs into a higher layer", file("db/retry.ts", "../trpc/trpc"), /db\/ is below trpc\//],
    ["a dynamic import", { path: "db/retry.ts", text: 'const m = await import("@/server/upkeep/upkeep");' }, /db\/ is below upkeep\//],
    ["a route reading a report's SQL around the seam", file("http/report-routes.ts", "@/server/store/postgres/ad-results.sql"), /through the store seam/],
    [
      "a job reading the store's SQL around the seam",
      file("pipeline/export/job/deliver-run.ts", "@/server/store/postgres/export-batches.sql"),
      /through the store seam/,
    ],
    ["the seam importing pg", file("store/store.ts", "pg"), /engine-neutral/],
    ["the server importing a page", file("accounts/actor.ts", "@/app/dashboard/page"), /never imports src\/app\//],
    ["a folder in no layer", file("jobs/run.ts"), /in no layer/],
  ])("fail on %s", (_, source, expected) => {
    expect(messages([source]).join("\n")).toMatch(expected);
  });

  it("fail on a cycle between folders of one layer, naming the files that close it", () => {
    const found = messages([file("pipeline/settle/a.ts", "@/server/pipeline/attribute/b"), file("pipeline/attribute/b.ts", "@/server/pipeline/settle/a")]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/import cycle between folders: pipeline\/\w+ \(pipeline\/\w+\/\w\.ts\) → pipeline\/\w+ \(pipeline\/\w+\/\w\.ts\) → pipeline\/\w+/);
  });

  it("let a folder import its own files and lower layers, and one layer's folders each other without a cycle", () => {
    expect(
      messages([
        file(
          "pipeline/settle/stretch.ts",
          "./shards",
          "@/server/store",
          "@/server/db/retry",
          "@/server/core/days",
          "@/server/pipeline/accept/beacons/bot-agents",
        ),
        file("http/report-routes.ts", "@/server/trpc/trpc", "@/server/store", "next/server"),
        file("store/postgres/ad-results.sql.ts", "pg", "../report-rows"),
        file("store/index.ts", "./postgres/postgres-store"),
      ]),
    ).toEqual([]);
  });
});
