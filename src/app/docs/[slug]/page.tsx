import { marked } from "marked";
import { notFound } from "next/navigation";
import { TopNav } from "../../top-nav";
import { listDocs, readDoc } from "../documents";

/** Docs served by a route of their own: docs/api.md heads the API reference (../api/route.ts). */
const OWN_ROUTES = new Set(["api"]);

export async function generateStaticParams() {
  return (await listDocs()).filter((doc) => !OWN_ROUTES.has(doc.slug)).map((doc) => ({ slug: doc.slug }));
}

export default async function DocPage({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  const markdown = await readDoc(slug);
  if (markdown === null) notFound();
  // The docs are the project's own files, not user input, so their HTML is trusted.
  const html = await marked.parse(markdown);
  return (
    <>
      <TopNav />
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: the project's own docs, rendered by marked (see above) */}
      <main className="prose" dangerouslySetInnerHTML={{ __html: html }} />
    </>
  );
}
