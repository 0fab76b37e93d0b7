// `npm run keys -- create --account <id> [--name <name>]`, `npm run keys -- list --account <id>`,
// `npm run keys -- revoke <key id>`: API keys (of the report routes, and of a publisher's server
// sending verified orders). `npm run keys -- signing-secret --account <id> [--retire-previous-now]`
// makes or rotates a publisher's order-signing secret and prints it once;
// `npm run keys -- signing-secrets --account <id>` lists the live ones (prefixes only).
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey, listApiKeys, revokeApiKey } from "@/server/accounts/api-keys";
import { listSigningSecrets, rotateSigningSecret } from "@/server/pipeline/accept/conversions/signing-secrets";
import { operatorArguments, runOperatorCommand } from "./operator-command";

const USAGE =
  "usage: npm run keys -- create --account <id> [--name <name>] | list --account <id> | revoke <key id>" +
  " | signing-secret --account <id> [--retire-previous-now] | signing-secrets --account <id>";

const { positionals, values } = operatorArguments({ account: { type: "string" }, name: { type: "string" }, "retire-previous-now": { type: "boolean" } });
const [command, keyId] = positionals;
const date = (value: Date | null) => (value ? value.toISOString() : "-");

await runOperatorCommand(USAGE, async () => {
  if (command === "create" && values.account) {
    const created = await createApiKey({ actor: OPERATOR, accountId: values.account, name: values.name ?? "report API" });
    console.log(`tally: created API key ${created.id} (${created.name}) for ${created.accountId}`);
    console.log("tally: the key is shown this once; Tally keeps only its hash:");
    console.log(created.key);
  } else if (command === "list" && values.account) {
    const keys = await listApiKeys({ actor: OPERATOR, accountId: values.account });
    if (keys.length === 0) console.log(`tally: ${values.account} has no API keys`);
    for (const key of keys) {
      console.log(
        `${key.id}  ${key.prefix}…  ${key.name}  created ${date(key.createdAt)}  last used ${date(key.lastUsedAt)}  ${key.revokedAt ? `revoked ${date(key.revokedAt)}` : "live"}`,
      );
    }
  } else if (command === "signing-secret" && values.account) {
    const rotated = await rotateSigningSecret({ actor: OPERATOR, publisherId: values.account, retirePreviousNow: values["retire-previous-now"] === true });
    console.log(`tally: made order-signing secret ${rotated.current.id} for ${values.account}`);
    if (rotated.previous) console.log(`tally: the previous secret ${rotated.previous.prefix}… still verifies tokens until ${date(rotated.previous.retiresAt)}`);
    console.log("tally: the secret is shown this once; give it to the publisher's servers only, never to a browser:");
    console.log(rotated.secret);
  } else if (command === "signing-secrets" && values.account) {
    const secrets = await listSigningSecrets({ actor: OPERATOR, publisherId: values.account });
    if (secrets.length === 0) console.log(`tally: ${values.account} has no order-signing secret`);
    for (const secret of secrets) {
      console.log(`${secret.id}  ${secret.prefix}…  created ${date(secret.createdAt)}  ${secret.retiresAt ? `retires ${date(secret.retiresAt)}` : "current"}`);
    }
  } else if (command === "revoke" && keyId) {
    const revoked = await revokeApiKey({ actor: OPERATOR, keyId });
    console.log(`tally: API key ${revoked.id} (${revoked.prefix}…) revoked at ${date(revoked.revokedAt)}`);
  } else return false;
  return true;
});
