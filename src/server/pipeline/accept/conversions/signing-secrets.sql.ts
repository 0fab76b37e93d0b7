// Hand-written SQL of the signing secrets (signing-secrets.ts). Prisma's tagged template: the id a parameter.
import type { Prisma } from "@/server/db/generated/client";

/** Locks the account's row until the transaction ends: one rotation at a time per publisher. */
export async function lockAccountRow(tx: Prisma.TransactionClient, accountId: string): Promise<void> {
  await tx.$queryRaw`SELECT 1 FROM accounts WHERE id = ${accountId} FOR UPDATE`;
}
