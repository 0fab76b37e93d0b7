// What the activity log keeps of an export destination's changes (docs/activity.md).
import type { Actor } from "@/server/accounts/actor";
import { changedFields, recordActivity } from "@/server/activity/activity-log";
import type { ExportDestination, Prisma } from "@/server/db/generated/client";
import type { DestinationView } from "./destinations";

/**
 * What the activity log keeps of a destination: its settings, and of its credentials only their
 * kind and the role (a role ARN is no secret); an access key's id and secret are never logged, a
 * change of either reads "changed".
 */
function loggedDestination(view: DestinationView) {
  return {
    name: view.name,
    bucket: view.bucket,
    region: view.region,
    endpoint: view.endpoint,
    forcePathStyle: view.forcePathStyle,
    prefix: view.prefix,
    credentialKind: view.credentials.kind,
    roleArn: view.credentials.kind === "assume_role" ? view.credentials.roleArn : null,
    writeSuccessMarker: view.writeSuccessMarker,
    aggregateLayout: view.aggregateLayout,
    types: view.types,
    status: view.status,
  };
}

const destinationSubject = (view: { id: string; name: string }) => `export destination ${view.name} (${view.id})`;

/** Whether the stored access key (its id or its secret) differs between two rows. */
const accessKeyChanged = (before: ExportDestination, after: ExportDestination) =>
  before.accessKeyId !== after.accessKeyId || !Buffer.from(before.secretCiphertext ?? []).equals(Buffer.from(after.secretCiphertext ?? []));

type Stored = { row: ExportDestination; view: DestinationView };

/** Records a destination made (`before` null), changed (only what differs; nothing when nothing does) or deleted (`after` null). */
export async function recordDestinationChange(tx: Prisma.TransactionClient, actor: Actor, before: Stored | null, after: Stored | null): Promise<void> {
  const { view } = (after ?? before)!;
  const base = { subject: destinationSubject(view), accountId: view.accountId };
  if (before === null && after !== null) {
    const accessKey = after.row.credentialKind === "access_key" ? { accessKey: "set" } : {};
    await recordActivity(tx, actor, { action: "export_destination.created", ...base, before: null, after: { ...loggedDestination(after.view), ...accessKey } });
  } else if (before !== null && after === null) {
    await recordActivity(tx, actor, { action: "export_destination.deleted", ...base, before: loggedDestination(before.view), after: null });
  } else if (before !== null && after !== null) {
    const keyChanged = after.row.credentialKind === "access_key" && accessKeyChanged(before.row, after.row);
    const change = changedFields(
      { ...loggedDestination(before.view), accessKey: "unchanged" },
      { ...loggedDestination(after.view), accessKey: keyChanged ? "changed" : "unchanged" },
    );
    if (!change) return;
    // A destination that needed attention and is active again, with nothing else changed, reads as enabled.
    const enabled = before.row.status !== "active" && Object.keys(change.after).join() === "status";
    await recordActivity(tx, actor, { action: enabled ? "export_destination.enabled" : "export_destination.updated", ...base, ...change });
  }
}
