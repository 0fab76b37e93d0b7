// `npm run users -- <command>`: an account's team, as the operator (docs/teams.md).
//   invite --account <id> --email <e-mail> --role admin|viewer [--base-url <address>]
//                                                               prints the invitation link (mails it too with SMTP_URL), starting
//                                                               as base-url.ts says: --base-url, TALLY_PUBLIC_URL, a running npm run dev
//   list --account <id>                                         the account's users and open invitations
//   set-role --user <id> --role admin|viewer                    a member's role in their account
//   remove --user <id>                                          deletes the user; their sessions end at once
//   revoke --invitation <id>                                    the link stops working
//   create-staff --email <e-mail> --name <name> [--password-stdin]   an account manager; the password is asked twice unless piped
import { createInterface } from "node:readline";
import { env } from "@/env";
import { OPERATOR } from "@/server/accounts/actor";
import { MEMBER_ROLES, type MemberRole } from "@/server/accounts/sessions";
import { TallyError } from "@/server/core/errors";
import { inviteUser, revokeInvitation } from "@/server/teams/invitations";
import { createStaffUser, listTeam, removeUser, setMemberRole } from "@/server/teams/team-members";
import { BaseUrlError, baseUrlNote, cliBaseUrl } from "./base-url";
import { readAppAddress } from "./local/app-address";
import { operatorArguments, runOperatorCommand } from "./operator-command";

const USAGE =
  "usage: npm run users -- invite --account <id> --email <e-mail> --role admin|viewer [--base-url <address>] | list --account <id>" +
  " | set-role --user <id> --role admin|viewer | remove --user <id> | revoke --invitation <id>" +
  " | create-staff --email <e-mail> --name <name> [--password-stdin]";

const { positionals, values } = operatorArguments({
  account: { type: "string" },
  email: { type: "string" },
  role: { type: "string" },
  user: { type: "string" },
  invitation: { type: "string" },
  name: { type: "string" },
  "password-stdin": { type: "boolean" },
  "base-url": { type: "string" },
});
const [command] = positionals;
const date = (value: Date) => value.toISOString();
const role = (value: string | undefined): MemberRole | undefined => MEMBER_ROLES.find((r) => r === value);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** Asks on the terminal without echoing what is typed. */
function askHidden(question: string): Promise<string> {
  const terminal = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  const writer = terminal as unknown as { _writeToOutput: (text: string) => void };
  let asked = false;
  writer._writeToOutput = (text) => {
    if (!asked) process.stdout.write(text);
    asked = true;
  };
  return new Promise((resolve) =>
    terminal.question(question, (answer) => {
      terminal.close();
      process.stdout.write("\n");
      resolve(answer);
    }),
  );
}

async function newPassword(): Promise<string> {
  if (values["password-stdin"]) return readStdin();
  const first = await askHidden("Password (10 characters or more): ");
  if ((await askHidden("The same password again: ")) !== first) throw new TallyError("bad_request", "the two passwords differ");
  return first;
}

await runOperatorCommand(
  USAGE,
  async () => {
    if (command === "invite" && values.account && values.email && role(values.role)) {
      const base = cliBaseUrl({ option: values["base-url"], publicUrl: env().TALLY_PUBLIC_URL, launcher: await readAppAddress(env().TALLY_DATA_DIR) });
      const { invitation, link, mailed } = await inviteUser({
        actor: OPERATOR,
        accountId: values.account,
        email: values.email,
        role: role(values.role)!,
        baseUrl: base.url,
      });
      console.log(
        `tally: invited ${invitation.email} to ${invitation.accountId} as ${invitation.role} (invitation ${invitation.id}, until ${date(invitation.expiresAt)})`,
      );
      console.log(`tally: ${baseUrlNote(base)}`);
      console.log(
        mailed ? `tally: mailed the link to ${invitation.email}; it is also shown this once:` : "tally: the link is shown this once; send it to them:",
      );
      console.log(link);
    } else if (command === "list" && values.account) {
      const team = await listTeam({ actor: OPERATOR, accountId: values.account });
      if (team.users.length === 0) console.log(`tally: ${values.account} has no users`);
      for (const user of team.users) console.log(`${user.id}  ${user.email}  ${user.name}  ${user.role}  created ${date(user.createdAt)}`);
      for (const invitation of team.invitations) {
        console.log(`${invitation.id}  ${invitation.email}  invited as ${invitation.role}  expires ${date(invitation.expiresAt)}`);
      }
    } else if (command === "set-role" && values.user && role(values.role)) {
      const user = await setMemberRole({ actor: OPERATOR, userId: values.user, role: role(values.role)! });
      console.log(`tally: ${user.email} (${user.id}) is now ${user.role} of their account`);
    } else if (command === "remove" && values.user) {
      const removed = await removeUser({ actor: OPERATOR, userId: values.user });
      console.log(`tally: removed ${removed.email} (${removed.id}); their sessions have ended`);
    } else if (command === "revoke" && values.invitation) {
      const revoked = await revokeInvitation({ actor: OPERATOR, invitationId: values.invitation });
      console.log(`tally: revoked the invitation of ${revoked.email} (${revoked.id}); its link no longer works`);
    } else if (command === "create-staff" && values.email && values.name) {
      const user = await createStaffUser({ actor: OPERATOR, email: values.email, name: values.name, password: await newPassword() });
      console.log(`tally: created account manager ${user.email} (${user.id}); they sign in at /sign-in`);
    } else return false;
    return true;
  },
  (error): error is BaseUrlError => error instanceof BaseUrlError,
);
