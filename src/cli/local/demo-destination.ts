// The demo publisher's export destination on `npm run dev`: the local S3 (s3rver, files under
// .data/s3), so the first export can be looked at without a cloud account. The local S3 is on
// 127.0.0.1, which tenants' endpoints may not be: the launcher allows private endpoints for the
// servers it starts (TALLY_EXPORT_ALLOW_PRIVATE_ENDPOINTS=1), and this operator's own destination
// is saved with that allowance whatever this process's environment says.

import { OPERATOR } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import { createDestination, updateDestination } from "@/server/pipeline/export/destinations/destinations";
import { LOCAL_S3_CREDENTIALS } from "./local-s3";

export const DEMO_BUCKET = "tally-demo";
const NAME = "Local demo bucket";

/** Creates the destination, or points it at this run's local S3; returns its id. */
export async function ensureDemoDestination(publisherId: string, endpoint: string): Promise<string | null> {
  if ((await db.account.count({ where: { id: publisherId } })) === 0) return null;
  const input = {
    accountId: publisherId,
    name: NAME,
    bucket: DEMO_BUCKET,
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    prefix: "exports",
    credentials: { kind: "access_key" as const, ...LOCAL_S3_CREDENTIALS },
  };
  const existing = await db.exportDestination.findFirst({ where: { accountId: publisherId, name: NAME } });
  const local = { actor: OPERATOR, allowPrivateEndpoints: true };
  if (!existing) return (await createDestination(input, local)).id;
  if (existing.endpoint !== endpoint || existing.status !== "active") await updateDestination(existing.id, input, local);
  return existing.id;
}
