// GET /invite/<token>: the page an invitation's link opens, with no session needed. It names the
// account and the e-mail, and asks a name and a password; a link that is used, revoked, expired or
// unknown says only that it is invalid or expired. The link's token stays out of the Referer.
import type { Metadata } from "next";
import { Problem } from "@/app/problem";
import { TallyError } from "@/server/core/errors";
import { invitationPreview } from "@/server/teams/invitations";
import { TopNav } from "../../top-nav";
import { TrpcProvider } from "../../trpc-client";
import { AcceptInvitationForm } from "./accept-invitation-form";

export const metadata: Metadata = { title: "Join Tally", referrer: "no-referrer", robots: { index: false } };
export const dynamic = "force-dynamic";

const ROLE_IN_WORDS = {
  admin: "an admin: you will manage its campaigns, ads, keys and settings",
  viewer: "a viewer: you will read its figures and download files",
};

export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await invitationPreview(token).catch((error: unknown) => {
    if (error instanceof TallyError) return { problem: error.message } as const;
    throw error;
  });
  return (
    <>
      <TopNav />
      <main className="narrow">
        <h1>Join Tally</h1>
        {"problem" in invitation ? (
          <Problem message="This invitation link is invalid or has expired. Ask whoever invited you for a new one." />
        ) : (
          <>
            <p>
              You are invited to <strong>{invitation.accountName}</strong> ({invitation.accountKind}) as {ROLE_IN_WORDS[invitation.role]}.
            </p>
            <TrpcProvider>
              <AcceptInvitationForm token={token} email={invitation.email} />
            </TrpcProvider>
          </>
        )}
      </main>
    </>
  );
}
