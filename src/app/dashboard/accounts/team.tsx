"use client";
// An account's team on its page: its users with their role, and its open invitations. Staff and
// the account's own admins invite (the link shown here once when it is not mailed), revoke, change
// a role and remove a user; the account's viewers see the same lists without the controls, and a
// sentence naming who may change them. The server decides who may (src/server/teams/team-rules.ts)
// and says so in the team's `mayManage`; the screen only follows it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useMemo, useState } from "react";
import { Problem } from "@/app/problem";
import { Empty, QueryState } from "@/app/query-state";
import type { MemberRole } from "@/server/accounts/user-input";
import type { InvitationSummary } from "@/server/teams/invitations";
import { ZInviteInput } from "@/server/teams/team-input";
import type { Team as TeamData, TeamMember } from "@/server/teams/team-members";
import { useTRPC } from "../../trpc-client";
import { DataTable } from "../data-table";
import { minuteOrNever } from "../figures";
import { momentColumn, type TableColumn } from "../table-columns";

const ROLE_LABELS: Record<MemberRole, string> = { admin: "admin", viewer: "viewer" };

const invitationColumns: TableColumn<InvitationSummary>[] = [
  { id: "email", label: "E-mail", kind: "text", value: (invitation) => invitation.email },
  { id: "role", label: "Role", kind: "text", value: (invitation) => ROLE_LABELS[invitation.role] },
  momentColumn("createdAt", "Sent", (invitation) => invitation.createdAt, minuteOrNever),
  momentColumn("expiresAt", "Expires", (invitation) => invitation.expiresAt, minuteOrNever),
];

function useTeam(accountId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const team = useQuery(trpc.teams.list.queryOptions({ accountId }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.teams.list.queryKey({ accountId }) });
  return { trpc, team, refresh };
}

/** "Ana, Bo and Cy" */
const listInWords = (names: string[]) => (names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`);

/** Said to whoever may not change the team: who may. */
export function whoChangesTheTeam(admins: string[]): string {
  if (admins.length === 0) return "Only Tally staff change this team: the account has no admin. Ask your account manager.";
  const whom = admins.length === 1 ? `its admin, ${admins[0]}` : `its admins, ${listInWords(admins)}`;
  return `You can read this team but not change it: ${whom}, or Tally staff, invite people, change roles and remove users.`;
}

export function Team({ accountId }: { accountId: string }) {
  const { team } = useTeam(accountId);
  return (
    <section aria-label="Team">
      <h3>Team</h3>
      <QueryState query={team} what="team">
        {(data) => (
          <>
            <Users accountId={accountId} team={data} />
            {data.mayManage ? null : (
              <p className="muted read-only-note" data-testid="team-read-only">
                {whoChangesTheTeam(data.admins)}
              </p>
            )}
            <Invitations accountId={accountId} team={data} />
          </>
        )}
      </QueryState>
    </section>
  );
}

/** The users' table, with a role picker and a Remove button for whoever may change the team. */
function Users({ accountId, team }: { accountId: string; team: TeamData }) {
  const { trpc, refresh } = useTeam(accountId);
  const manage = team.mayManage;
  const setRole = useMutation(trpc.teams.setRole.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(trpc.teams.remove.mutationOptions({ onSuccess: () => void refresh() }));
  // Whoever may change the team changes a role in its cell; the file holds the role's name either way.
  const columns = useMemo<TableColumn<TeamMember>[]>(
    () => [
      { id: "name", label: "Name", kind: "text", value: (user) => user.name },
      { id: "email", label: "E-mail", kind: "text", value: (user) => user.email },
      {
        id: "role",
        label: "Role",
        kind: "text",
        value: (user) => ROLE_LABELS[user.role],
        cell: manage
          ? (user) => (
              <select
                aria-label={`Role of ${user.email}`}
                value={user.role}
                disabled={setRole.isPending}
                onChange={(e) => setRole.mutate({ userId: user.id, role: e.target.value === "admin" ? "admin" : "viewer" })}
              >
                <option value="admin">admin</option>
                <option value="viewer">viewer</option>
              </select>
            )
          : undefined,
      },
      momentColumn("createdAt", "Created", (user) => user.createdAt, minuteOrNever),
    ],
    [manage, setRole.isPending, setRole.mutate],
  );

  return (
    <>
      {team.users.length === 0 ? (
        <Empty testId="team-empty">No users yet.{manage ? " Invite one below." : ""}</Empty>
      ) : (
        <DataTable
          caption="Users of the account"
          columns={columns}
          rows={team.users}
          rowKey={(user) => user.id}
          currency={null}
          defaultSort={{ id: "email", descending: false }}
          fileName="team"
          sheet="Team"
          urlPrefix="team_"
          actions={
            manage
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
      <Problem message={setRole.error?.message} about="The role could not be changed" testId="team-role-problem" />
      <Problem message={remove.error?.message} about="The user could not be removed" testId="team-remove-problem" />
    </>
  );
}

/** The open invitations, the invite form and the link shown once, together. */
function Invitations({ accountId, team }: { accountId: string; team: TeamData }) {
  const { trpc, refresh } = useTeam(accountId);
  const manage = team.mayManage;
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

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZInviteInput.safeParse({ accountId, email, role });
    if (!parsed.success) return setProblem(`E-mail ${parsed.error.issues[0]!.message}`);
    setProblem(null);
    invite.mutate(parsed.data);
  };

  return (
    <>
      {team.invitations.length > 0 ? (
        <>
          <h4>Open invitations</h4>
          <DataTable
            caption="Open invitations"
            columns={invitationColumns}
            rows={team.invitations}
            rowKey={(invitation) => invitation.id}
            currency={null}
            defaultSort={{ id: "expiresAt", descending: false }}
            fileName="invitations"
            sheet="Invitations"
            urlPrefix="invitations_"
            actions={
              manage
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
      {manage ? (
        <form className="toolbar" noValidate onSubmit={submit} aria-label="Invite a user">
          <label>
            E-mail to invite
            <input type="email" value={email} onChange={(e) => setEmail(e.target.value)} placeholder="name@brand.example" aria-invalid={problem !== null} />
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.target.value === "viewer" ? "viewer" : "admin")}>
              <option value="admin">admin (changes the account)</option>
              <option value="viewer">viewer (reads and downloads)</option>
            </select>
          </label>
          <button type="submit" className="button" disabled={invite.isPending}>
            {invite.isPending ? "Inviting…" : "Invite"}
          </button>
        </form>
      ) : null}
      <Problem message={problem} testId="invite-problem" />
      <Problem message={invite.error?.message} about="The invitation could not be made" testId="invite-problem" />
      <Problem message={revoke.error?.message} about="The invitation could not be revoked" testId="revoke-problem" />
      {invite.data ? <InvitationMade made={invite.data} /> : null}
    </>
  );
}

/** The invitation just made: its link to copy, shown this once, or that it was mailed. */
function InvitationMade({ made }: { made: { invitation: InvitationSummary; link: string | null } }) {
  return (
    <div className="callout" role="status">
      {made.link ? (
        <>
          <p>
            Invitation of <strong>{made.invitation.email}</strong>: copy the link now and send it to them; it is not shown again and works once, for 7 days.
          </p>
          <code className="secret" data-testid="invitation-link">
            {made.link}
          </code>
          <button type="button" className="chip" onClick={() => void navigator.clipboard?.writeText(made.link ?? "")}>
            Copy
          </button>
        </>
      ) : (
        <p>
          The invitation link was e-mailed to <strong>{made.invitation.email}</strong>; it works once, for 7 days.
        </p>
      )}
    </div>
  );
}
