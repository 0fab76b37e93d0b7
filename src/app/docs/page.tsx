import type { Metadata } from "next";
import Link from "next/link";
import { TopNav } from "../top-nav";
import { docAddress, listDecisions, listDocs } from "./documents";

export const metadata: Metadata = { title: "Docs" };

export default async function DocsIndex() {
  const [docs, decisions] = await Promise.all([listDocs(), listDecisions()]);
  return (
    <>
      <TopNav />
      <main>
        <h1>Documentation</h1>
        <ul>
          {docs.map((doc) => (
            <li key={doc.slug}>
              <Link href={docAddress({ folder: "", slug: doc.slug })}>{doc.title}</Link>
            </li>
          ))}
        </ul>
        <h2>Decision records</h2>
        <ul>
          {decisions.map((doc) => (
            <li key={doc.slug}>
              <Link href={`/docs/decisions/${doc.slug}`}>{doc.title}</Link>
            </li>
          ))}
        </ul>
      </main>
    </>
  );
}
