import type { Metadata } from "next";
import { TopNav } from "../top-nav";

export const metadata: Metadata = { title: "Dashboard" };

export default function DashboardPlaceholder() {
  return (
    <>
      <TopNav />
      <main>
        <h1>Dashboard</h1>
        <p>
          The account managers&apos; dashboard (campaigns, ads, accounts, API keys, export destinations and charts) is
          on its way. Until then, the demo data can be explored through the database seeded by <code>npm run dev</code>.
        </p>
      </main>
    </>
  );
}
