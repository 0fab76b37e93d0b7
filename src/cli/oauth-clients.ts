// `npm run oauth-clients -- create --account <id> [--name <name>] [--scope <scope>]...`,
// `npm run oauth-clients -- list --account <id>`, `npm run oauth-clients -- rotate <client id>`,
// `npm run oauth-clients -- revoke <client id>`: OAuth clients of the report routes
// (docs/oauth.md). create and rotate print the secret once.
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { env, exitOnEnvError } from "@/env";
import { OPERATOR } from "@/server/accounts/actor";
import { createOauthClient, listOauthClients, OAUTH_SCOPES, revokeOauthClient, rotateOauthClientSecret } from "@/server/accounts/oauth-clients";
import { TallyError } from "@/server/core/errors";
import { disconnectDb } from "@/server/db/client";

const USAGE =
  "usage: npm run oauth-clients -- create --account <id> [--name <name>] [--scope <scope>]... | list --account <id>" +
  ` | rotate <client id> | revoke <client id>; scopes: ${OAUTH_SCOPES.join(", ")} (default reports:read)`;

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { account: { type: "string" }, name: { type: "string" }, scope: { type: "string", multiple: true } },
});
const [command, clientId] = positionals;
const date = (value: Date | null) => (value ? value.toISOString() : "-");
const showSecret = (secret: string) => {
  console.log("tally: the secret is shown this once; Tally keeps only its hash:");
  console.log(secret);
};

try {
  if (command === "create" && values.account) {
    const scopes = (values.scope ?? ["reports:read"]) as (typeof OAUTH_SCOPES)[number][];
    const created = await createOauthClient({ actor: OPERATOR, accountId: values.account, name: values.name ?? "report API", scopes });
    console.log(`tally: created OAuth client ${created.id} (${created.name}) for ${created.accountId}, scopes ${created.scopes.join(" ")}`);
    showSecret(created.secret);
  } else if (command === "list" && values.account) {
    const clients = await listOauthClients({ actor: OPERATOR, accountId: values.account });
    if (clients.length === 0) console.log(`tally: ${values.account} has no OAuth clients`);
    for (const client of clients) {
      console.log(
        `${client.id}  ${client.name}  ${client.scopes.join(" ")}  created ${date(client.createdAt)}  last used ${date(client.lastUsedAt)}` +
          `  secret rotated ${date(client.secretRotatedAt)}  ${client.revokedAt ? `revoked ${date(client.revokedAt)}` : "live"}`,
      );
    }
  } else if (command === "rotate" && clientId) {
    const rotated = await rotateOauthClientSecret({ actor: OPERATOR, clientId });
    console.log(
      `tally: OAuth client ${rotated.id} (${rotated.name}) has a new secret; the old one and its access tokens stopped at ${date(rotated.secretRotatedAt)}`,
    );
    showSecret(rotated.secret);
  } else if (command === "revoke" && clientId) {
    const revoked = await revokeOauthClient({ actor: OPERATOR, clientId });
    console.log(`tally: OAuth client ${revoked.id} (${revoked.name}) revoked at ${date(revoked.revokedAt)}; its access tokens no longer work`);
  } else {
    console.error(`tally: ${USAGE}`);
    process.exitCode = 2;
  }
} catch (error) {
  // A scope that is not one of OAUTH_SCOPES, or an empty name, fails the input's schema: one line each.
  if (error instanceof ZodError) {
    for (const issue of error.issues) console.error(`tally: ${issue.path.join(".")} ${issue.message}`);
    console.error(`tally: ${USAGE}`);
    process.exitCode = 2;
  } else {
    if (!(error instanceof TallyError)) throw error;
    console.error(`tally: ${error.message}`);
    process.exitCode = 1;
  }
} finally {
  await disconnectDb();
}
