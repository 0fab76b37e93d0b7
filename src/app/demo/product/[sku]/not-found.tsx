import Link from "next/link";
import { TopNav } from "../../../top-nav";

export default function DemoProductNotFound() {
  return (
    <>
      <TopNav />
      <main>
        <h1>Product not found</h1>
        <p>Demo Market has no product with this SKU.</p>
        <p>
          <Link href="/demo">See all products</Link>
        </p>
      </main>
    </>
  );
}
