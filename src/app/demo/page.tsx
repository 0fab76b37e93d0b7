import type { Metadata } from "next";
import { TopNav } from "../top-nav";

export const metadata: Metadata = { title: "Demo store" };

export default function DemoStorePlaceholder() {
  return (
    <>
      <TopNav />
      <main>
        <h1>Demo Market</h1>
        <p>
          A small store that shows sponsored products and banners served by Tally, measured by the browser SDK. The
          search page, product pages and checkout arrive with the ad query and beacon intake.
        </p>
      </main>
    </>
  );
}
