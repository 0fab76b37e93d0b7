import { DocPage } from "../doc-page";
import { fileSlug, listDocs, pageSlug } from "../documents";

export async function generateStaticParams() {
  return (await listDocs()).map((doc) => ({ slug: pageSlug(doc.slug) }));
}

export default async function Doc({ params }: { params: Promise<{ slug: string }> }) {
  // docs/api.md is served as /docs/api-guide (documents.ts), never at its file's name.
  return <DocPage place={{ folder: "", slug: fileSlug((await params).slug) }} />;
}
