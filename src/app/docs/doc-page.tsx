import { notFound } from "next/navigation";
import { TopNav } from "../top-nav";
import { type DocPlace, readDoc, renderDoc } from "./documents";

/** One served document: a page of docs/ or a decision record. */
export async function DocPage({ place }: { place: DocPlace }) {
  const markdown = await readDoc(place);
  if (markdown === null) notFound();
  // The docs are the project's own files, not user input, so their HTML is trusted.
  const html = await renderDoc(place, markdown);
  return (
    <>
      <TopNav />
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: the project's own docs, rendered by marked (see above) */}
      <main className="prose" dangerouslySetInnerHTML={{ __html: html }} />
    </>
  );
}
