import { DocPage } from "../doc-page";
import { listDocs } from "../documents";

/** Docs served by a route of their own: docs/api.md heads the API reference (../api/route.ts). */
const OWN_ROUTES = new Set(["api"]);

export async function generateStaticParams() {
  return (await listDocs()).filter((doc) => !OWN_ROUTES.has(doc.slug)).map((doc) => ({ slug: doc.slug }));
}

export default async function Doc({ params }: { params: Promise<{ slug: string }> }) {
  return <DocPage place={{ folder: "", slug: (await params).slug }} />;
}
