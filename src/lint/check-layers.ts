// `npm run lint`'s check of the layers of src/server/ (src/lint/layers.ts): prints each violation
// and exits 1 when there is one.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { checkLayers, type SourceFile } from "./layers";

const SERVER = path.resolve(import.meta.dirname, "../server");

/** The non-test sources of src/server/, the generated Prisma client left out. */
export async function serverSources(dir = SERVER): Promise<SourceFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry): Promise<SourceFile[]> => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === "generated" ? [] : serverSources(full);
      if (!/\.tsx?$/.test(entry.name) || /\.test\.tsx?$/.test(entry.name)) return [];
      return [{ path: path.relative(SERVER, full).split(path.sep).join("/"), text: await readFile(full, "utf8") }];
    }),
  );
  return nested.flat();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const violations = checkLayers(await serverSources());
  for (const { file, message } of violations) console.error(`src/server/${file}: ${message}`);
  if (violations.length > 0) {
    console.error(`${violations.length} layering violation(s); the layers are in src/lint/layers.ts and docs/architecture.md`);
    process.exit(1);
  }
  console.log("layers: src/server/ imports run one way, with no cycle between folders");
}
