// The project's docs/ folder, served as pages so a running Tally explains itself.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

const DOCS_DIR = path.join(process.cwd(), "docs");

export interface DocSummary {
  slug: string;
  title: string;
}

export async function listDocs(): Promise<DocSummary[]> {
  const files = (await readdir(DOCS_DIR).catch(() => [] as string[])).filter((file) => file.endsWith(".md")).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await readFile(path.join(DOCS_DIR, file), "utf8");
      const title = /^#\s+(.+)$/m.exec(text)?.[1] ?? file;
      return { slug: file.replace(/\.md$/, ""), title };
    }),
  );
}

export async function readDoc(slug: string): Promise<string | null> {
  if (!/^[a-z0-9-]+$/.test(slug)) return null;
  try {
    return await readFile(path.join(DOCS_DIR, `${slug}.md`), "utf8");
  } catch {
    return null;
  }
}
