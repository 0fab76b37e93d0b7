import type { Metadata } from "next";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { SESSION_COOKIE, viewerOfSession } from "@/server/accounts/sessions";
import { TopNav } from "../top-nav";
import { TrpcProvider } from "../trpc-client";
import { SignInForm } from "./sign-in-form";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage() {
  if (await viewerOfSession((await cookies()).get(SESSION_COOKIE)?.value)) redirect("/dashboard");
  return (
    <>
      <TopNav />
      <main className="narrow">
        <h1>Sign in</h1>
        <p className="muted">
          Account managers, advertisers and publishers sign in with their e-mail and the password they chose when they accepted their invitation.
        </p>
        <TrpcProvider>
          <SignInForm />
        </TrpcProvider>
      </main>
    </>
  );
}
