"use client";
// An account's team on its page: its users with their role, and its open invitations. Account
// managers invite (the link shown here once when it is not mailed), revoke, change a role and
// remove a user; the account's own users see the same lists without the controls.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useMemo, useState } from "react";
import { Problem } from "@/app/problem";
import type { MemberRole } from "@/server/accounts/user-input";
import type { InvitationSummary } from "@/server/teams/invitations";
import { ZInviteInput } from "@/server/teams/team-input";
import type { TeamMember } from "@/server/teams/team-members";
import { useTRPC } from "../../trpc-client";
import { DataTable } from "../data-table";
import { minuteOrNever } from "../figures";
import { momentColumn, type TableColumn } from "../table-columns";

const ROLE_LABELS: Record<MemberRole, string> = { admin: "admin", viewer: "viewer" };

const invitationColumns: TableColumn<InvitationSummary>[] = [
  { id: "email", label: "E-mail", kind: "text", value: (invitation) => invitation.email },
  { id: "role", label: "Role", kind: "text", value: (invitation) => ROLE_LABELS[invitation.role] },
  momentColumn("createdAt", "Sent (UTC)", (invitation) => invitation.createdAt, minuteOrNever),
  momentColumn("expiresAt", "Expires (UTC)", (invitation) => invitation.expiresAt, minuteOrNever),
];

function useTeam(accountId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const team = useQuery(trpc.teams.list.queryOptions({ accountId }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.teams.list.queryKey({ accountId }) });
  return { trpc, team, refresh };
}

// Over 80 lines on purpose: the users' table with its two controls, in the order the page shows them.
export function Team({ accountId, staff }: { accountId: string; staff: boolean }) {
  const { trpc, team, refresh } = useTeam(accountId);
  const setRole = useMutation(trpc.teams.setRole.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(trpc.teams.remove.mutationOptions({ onSuccess: () => void refresh() }));
  // Staff change a role in its cell; the file holds the role's name either way.
  const columns = useMemo<TableColumn<TeamMember>[]>(
    () => [
      { id: "name", label: "Name", kind: "text", value: (user) => user.name },
      { id: "email", label: "E-mail", kind: "text", value: (user) => user.email },
      {
        id: "role",
        label: "Role",
        kind: "text",
        value: (user) => ROLE_LABELS[user.role],
        cell: staff
          ? (user) => (
              <select
                aria-label={`Role of ${user.email}`}
                value={user.role}
                disabled={setRole.isPending}
                onChange={(e) => setRole.mutate({ userId: user.id, role: e.target.value as MemberRole })}
              >
                <option value="admin">admin</option>
                <option value="viewer">viewer</option>
              </select>
            )
          : undefined,
      },
      momentColumn("createdAt", "Created (UTC)", (user) => user.createdAt, minuteOrNever),
    ],
    [staff, setRole.isPending, setRole.mutate],
  );

  return (
    <section aria-label="Team">
      <h3>Team</h3>
      {team.error ? (
        <p role="alert" className="error">
          The team could not be loaded: {team.error.message}
        </p>
      ) : !team.data ? (
        <p aria-busy="true" className="muted">
          Loading the team…
        </p>
      ) : team.data.users.length === 0 ? (
        <p className="empty">No users yet.{staff ? " Invite one below." : ""}</p>
      ) : (
        <DataTable
          caption="Users of the account"
          columns={columns}
          rows={team.data.users}
          rowKey={(user) => user.id}
          currency={null}
          defaultSort={{ id: "email", descending: false }}
          fileName="team"
          sheet="Team"
          urlPrefix="team_"
          actions={
            staff
              ? (user) => (
                  <button
                    type="button"
                    className="link-button"
                    disabled={remove.isPending}
                    onClick={() => window.confirm(`Remove ${user.email}? They are signed out at once.`) && remove.mutate({ userId: user.id })}
                  >
                    Remove<span className="visually-hidden"> {user.email}</span>
                  </button>
                )
              : undefined
          }
        />
      )}
      <Problem message={setRole.error?.message} about="The role could not be changed" />
      <Problem message={remove.error?.message} about="The user could not be removed" />
      <Invitations accountId={accountId} staff={staff} />
    </section>
  );
}

// Over 80 lines on purpose: the open invitations, the invite form and the link shown once, together.
function Invitations({ accountId, staff }: { accountId: string; staff: boolean }) {
  const { trpc, team, refresh } = useTeam(accountId);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<MemberRole>("admin");
  const [problem, setProblem] = useState<string | null>(null);
  const invite = useMutation(
    trpc.teams.invite.mutationOptions({
      onSuccess: () => {
        setEmail("");
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.teams.revokeInvitation.mutationOptions({ onSuccess: () => void refresh() }));
  const invitations = team.data?.invitations ?? [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZInviteInput.safeParse({ accountId, email, role });
    if (!parsed.success) return setProblem(`E-mail ${parsed.error.issues[0]!.message}`);
    setProblem(null);
    invite.mutate(parsed.data);
  };

  return (
    <>
      {invitations.length > 0 ? (
        <>
          <h4>Open invitations</h4>
          <DataTable
            caption="Open invitations"
            columns={invitationColumns}
            rows={invitations}
            rowKey={(invitation) => invitation.id}
            currency={null}
            defaultSort={{ id: "expiresAt", descending: false }}
            fileName="invitations"
            sheet="Invitations"
            urlPrefix="invitations_"
            actions={
              staff
                ? (invitation) => (
                    <button type="button" className="link-button" disabled={revoke.isPending} onClick={() => revoke.mutate({ invitationId: invitation.id })}>
                      Revoke<span className="visually-hidden"> the invitation of {invitation.email}</span>
                    </button>
                  )
                : undefined
            }
          />
        </>
      ) : null}
      {staff ? (
        <form className="toolbar" noValidate onSubmit={submit} aria-label="Invite a user">
          <label>
            E-mail to invite
            <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@brand.example" aria-invalid={problem !== null} />
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.target.value as MemberRole)}>
              <option value="admin">admin (changes the account)</option>
              <option value="viewer">viewer (reads and downloads)</option>
            </select>
          </label>
          <button type="submit" className="button" disabled={invite.isPending}>
            {invite.isPending ? "Inviting…" : "Invite"}
          </button>
        </form>
      ) : null}
      <Problem message={problem} />
      <Problem message={invite.error?.message} about="The invitation could not be made" />
      <Problem message={revoke.error?.message} about="The invitation could not be revoked" />
      {invite.data ? (
        <div className="callout" role="status">
          {invite.data.link ? (
            <>
              <p>
                Invitation of <strong>{invite.data.invitation.email}</strong>: copy the link now and send it to them; it is not shown again and works once, for
                7 days.
              </p>
              <code className="secret" data-testid="invitation-link">
                {invite.data.link}
              </code>
              <button type="button" className="chip" onClick={() => void navigator.clipboard?.writeText(invite.data.link ?? "")}>
                Copy
              </button>
            </>
          ) : (
            <p>
              The invitation link was e-mailed to <strong>{invite.data.invitation.email}</strong>; it works once, for 7 days.
            </p>
          )}
        </div>
      ) : null}
    </>
  );
}
