// `npm run destinations -- <command>`: export destinations, until the dashboard has them.
//   create --account <id> --name <name> --bucket <b> --region <r> [--endpoint <url> --path-style] [--prefix <p>]
//          (--access-key-id <id> [--secret-access-key <s>] | --role-arn <arn> --external-id <x>) [--types a,b] [--no-success-marker]
//   list [--account <id>]  ·  test <id>  ·  delete <id>
// The secret access key is read from TALLY_EXPORT_SECRET_ACCESS_KEY when not given, so it need
// not appear in the shell's history; lists never show it.
import { parseArgs } from "node:util";
import { exitOnEnvError, env } from "@/env";
import { disconnectDb } from "@/server/db/client";
import { TallyError } from "@/server/errors";
import { createDestination, deleteDestination, destinationWithSecret, listDestinations, type DestinationView } from "@/server/export/destinations";
import { testConnection } from "@/server/export/s3";

const USAGE = "usage: npm run destinations -- create --account <id> --name <name> --bucket <bucket> --region <region> [--endpoint <url> --path-style] [--prefix <prefix>] (--access-key-id <id> [--secret-access-key <secret>] | --role-arn <arn> --external-id <id>) [--types a,b] [--no-success-marker] | list [--account <id>] | test <id> | delete <id>";

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    account: { type: "string" }, name: { type: "string" }, bucket: { type: "string" }, region: { type: "string" }, endpoint: { type: "string" },
    "path-style": { type: "boolean" }, prefix: { type: "string" }, "access-key-id": { type: "string" }, "secret-access-key": { type: "string" },
    "role-arn": { type: "string" }, "external-id": { type: "string" }, types: { type: "string" }, "no-success-marker": { type: "boolean" },
  },
});
const [command, id] = positionals;

const describe = (d: DestinationView) => {
  const who = d.credentials.kind === "access_key" ? `key ${d.credentials.accessKeyId} (secret ${d.credentials.secretAccessKey})` : `role ${d.credentials.roleArn}, external id ${d.credentials.externalId}`;
  return `${d.id}  ${d.name}  s3://${d.bucket}/${d.prefix}  ${d.region}${d.endpoint ? ` at ${d.endpoint}` : ""}  ${who}  types ${d.types.join(",")}  ${d.status}${d.statusReason ? `: ${d.statusReason}` : ""}`;
};

try {
  if (command === "create") {
    const credentials = values["role-arn"]
      ? { kind: "assume_role", roleArn: values["role-arn"], externalId: values["external-id"] ?? "" }
      : { kind: "access_key", accessKeyId: values["access-key-id"] ?? "", secretAccessKey: values["secret-access-key"] ?? process.env.TALLY_EXPORT_SECRET_ACCESS_KEY ?? "" };
    const created = await createDestination({
      accountId: values.account ?? "", name: values.name ?? values.bucket ?? "", bucket: values.bucket ?? "", region: values.region ?? "",
      endpoint: values.endpoint ?? null, forcePathStyle: values["path-style"] ?? false, prefix: values.prefix ?? "", credentials,
      writeSuccessMarker: !values["no-success-marker"], ...(values.types ? { types: values.types.split(",").map((t) => t.trim()) } : {}),
    });
    console.log(`tally: created ${describe(created)}`);
  } else if (command === "list") {
    const list = await listDestinations(values.account);
    if (list.length === 0) console.log("tally: no export destinations");
    for (const d of list) console.log(describe(d));
  } else if (command === "test" && id) {
    const destination = await destinationWithSecret(id);
    if (!destination) throw new TallyError("not_found", `no export destination ${id}`);
    const result = await testConnection(destination);
    console.log(result.ok ? `tally: ${id}: wrote and deleted ${result.key}: the connection works` : `tally: ${id}: ${result.error}`);
    if (!result.ok) process.exitCode = 1;
  } else if (command === "delete" && id) {
    await deleteDestination(id);
    console.log(`tally: deleted ${id}`);
  } else {
    console.error(`tally: ${USAGE}`);
    process.exitCode = 2;
  }
} catch (error) {
  if (!(error instanceof TallyError)) throw error;
  console.error(`tally: ${error.message}`);
  process.exitCode = 1;
} finally {
  await disconnectDb();
}
