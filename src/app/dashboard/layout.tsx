import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { SESSION_COOKIE, viewerOfSession } from "@/server/accounts/sessions";
import { TrpcProvider } from "../trpc-client";
import { DashboardHeader } from "./dashboard-header";

export const dynamic = "force-dynamic";

// Every dashboard page needs a signed-in viewer; the procedures check again on every call.
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const viewer = await viewerOfSession((await cookies()).get(SESSION_COOKIE)?.value);
  if (!viewer) redirect("/sign-in");
  return (
    <TrpcProvider>
      <DashboardHeader name={viewer.name} role={viewer.role} memberRole={viewer.role === "member" ? viewer.memberRole : undefined} />
      <main className="wide">{children}</main>
    </TrpcProvider>
  );
}
