import { DocPage } from "../../doc-page";
import { listDecisions } from "../../documents";

export async function generateStaticParams() {
  return (await listDecisions()).map((doc) => ({ slug: doc.slug }));
}

export default async function Decision({ params }: { params: Promise<{ slug: string }> }) {
  return <DocPage place={{ folder: "decisions", slug: (await params).slug }} />;
}
