import type { Metadata } from "next";
import { Suspense } from "react";
import { Busy } from "@/app/query-state";
import { ActivityPage } from "./activity-page";

export const metadata: Metadata = { title: "Activity" };

// The page reads its filters from the address: Suspense lets Next.js render it on the client.
export default function Activity() {
  return (
    <Suspense fallback={<Busy what="the activity" />}>
      <ActivityPage />
    </Suspense>
  );
}
