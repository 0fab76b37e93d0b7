import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { SESSION_COOKIE, viewerOfSession } from "@/server/accounts/sessions";
import { viewZone } from "@/server/pipeline/report/view-zone";
import { TrpcProvider } from "../trpc-client";
import { DashboardHeader } from "./dashboard-header";
import { ZoneProvider } from "./zone-context";

export const dynamic = "force-dynamic";

// Every dashboard page needs a signed-in viewer; the procedures check again on every call. The
// viewer's own zone (their account's, or the operator's default for staff) comes with the page, so
// its first figures are already in it.
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const viewer = await viewerOfSession((await cookies()).get(SESSION_COOKIE)?.value);
  if (!viewer) redirect("/sign-in");
  const own = await viewZone({ actor: viewer });
  return (
    <TrpcProvider>
      <ZoneProvider staff={viewer.role === "staff"} initial={own}>
        <DashboardHeader name={viewer.name} role={viewer.role} memberRole={viewer.role === "member" ? viewer.memberRole : undefined} />
        <main className="wide">{children}</main>
      </ZoneProvider>
    </TrpcProvider>
  );
}
