import Link from "next/link";
import { TopNav } from "../../../top-nav";
import { demoEnabled } from "../../demo-enabled";

export default async function DemoProductNotFound() {
  // With the demo off, a page of its own would tell that there is a demo store: say no more than
  // any other missing page.
  if (!(await demoEnabled())) {
    return (
      <>
        <TopNav />
        <main>
          <h1>Not found</h1>
          <p>There is nothing at this address.</p>
        </main>
      </>
    );
  }
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
