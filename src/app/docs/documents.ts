// The project's docs/ folder, and its decision records in docs/decisions/, served as pages so a
// running Tally explains itself. The files link to each other as files do in a repository
// (`reports.md#limits`, `../export.md`, `../../bench/results.md`): rendering turns a link to a
// served document into its page's address, and a link to any other file of the repository into
// its path as text, since the server has no page for it.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { Marked, type Tokens } from "marked";

const DOCS_DIR = path.join(process.cwd(), "docs");
const SLUG = /^[a-z0-9-]+$/;

export interface DocSummary {
  slug: string;
  title: string;
}

/** Where a served document lives in the repository: `docs/<slug>.md`, or a decision record. */
export type DocPlace = { folder: "" | "decisions"; slug: string };

async function summaries(folder: DocPlace["folder"]): Promise<DocSummary[]> {
  const dir = path.join(DOCS_DIR, folder);
  const files = (await readdir(dir).catch(() => [] as string[])).filter((file) => file.endsWith(".md") && SLUG.test(file.slice(0, -3))).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await readFile(path.join(dir, file), "utf8");
      const title = /^#\s+(.+)$/m.exec(text)?.[1] ?? file;
      return { slug: file.replace(/\.md$/, ""), title };
    }),
  );
}

export const listDocs = () => summaries("");
export const listDecisions = () => summaries("decisions");

export async function readDoc(place: DocPlace): Promise<string | null> {
  if (!SLUG.test(place.slug)) return null;
  try {
    return await readFile(path.join(DOCS_DIR, place.folder, `${place.slug}.md`), "utf8");
  } catch {
    return null;
  }
}

/**
 * Documents whose page is not at their file's name: /docs/api is the API reference itself (its
 * first screen is the reference, ../api/route.ts), so docs/api.md, the guide around it, is a page
 * of its own that the reference links to.
 */
const PAGE_SLUGS: Record<string, string> = { api: "api-guide" };
const FILE_SLUGS = Object.fromEntries(Object.entries(PAGE_SLUGS).map(([file, page]) => [page, file]));

/** The slug in a document's page address. */
export const pageSlug = (fileSlug: string) => PAGE_SLUGS[fileSlug] ?? fileSlug;
/** The file (docs/<slug>.md) a page slug of /docs/<slug> shows. */
export const fileSlug = (pageSlug: string) => FILE_SLUGS[pageSlug] ?? (PAGE_SLUGS[pageSlug] ? "" : pageSlug);

/** The page address of a document, in the repository's terms. */
export const docAddress = (place: DocPlace) => (place.folder ? `/docs/${place.folder}/${place.slug}` : `/docs/${pageSlug(place.slug)}`);

/**
 * Where a link written in a document leads when served: an absolute address (unchanged), the page
 * of another served document (with its fragment), or null for a file the server has no page for.
 */
export function servedHref(from: DocPlace, href: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("/") || href.startsWith("#")) return href;
  const hash = href.indexOf("#");
  const file = hash < 0 ? href : href.slice(0, hash);
  const fragment = hash < 0 ? "" : href.slice(hash);
  const inRepository = path.posix.normalize(path.posix.join("docs", from.folder, file));
  const served = /^docs\/(?:(decisions)\/)?([a-z0-9-]+)\.md$/.exec(inRepository);
  if (!served) return null;
  return `${docAddress({ folder: served[1] === "decisions" ? "decisions" : "", slug: served[2]! })}${fragment}`;
}

/** The anchor a heading gets, as GitHub makes them, so the documents' `#…` links land. */
export function headingId(text: string): string {
  return text
    .toLowerCase()
    .trim()
    .replace(/<[^>]+>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A document's HTML: links made to served pages or plain paths, headings given anchors. */
export async function renderDoc(from: DocPlace, markdown: string): Promise<string> {
  const seen = new Map<string, number>();
  const marked = new Marked({
    renderer: {
      link(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Link) {
        const text = this.parser.parseInline(token.tokens);
        const href = servedHref(from, token.href);
        if (href === null) return `<span class="repo-path" title="${escapeHtml(token.href)} in the repository">${text}</span>`;
        return `<a href="${escapeHtml(href)}"${token.title ? ` title="${escapeHtml(token.title)}"` : ""}>${text}</a>`;
      },
      heading(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Heading) {
        const base = headingId(token.text);
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        const id = count === 0 ? base : `${base}-${count}`;
        return `<h${token.depth} id="${escapeHtml(id)}">${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
      },
    },
  });
  return marked.parse(markdown);
}
