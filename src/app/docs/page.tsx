import type { Metadata } from "next";
import Link from "next/link";
import { TopNav } from "../top-nav";
import { listDocs } from "./documents";

export const metadata: Metadata = { title: "Docs" };

export default async function DocsIndex() {
  const docs = await listDocs();
  return (
    <>
      <TopNav />
      <main>
        <h1>Documentation</h1>
        <ul>
          {docs.map((doc) => (
            <li key={doc.slug}>
              <Link href={`/docs/${doc.slug}`}>{doc.title}</Link>
            </li>
          ))}
        </ul>
      </main>
    </>
  );
}
