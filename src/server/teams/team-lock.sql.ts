// Hand-written SQL: an account's team changes under an advisory lock of that account, so two admins demoting or removing each other at once cannot both pass the last-admin check; Prisma has no advisory locks.
import type { Prisma } from "@/server/db/generated/client";

/** Holds the account's team lock until the transaction ends. */
export async function lockTeamOf(tx: Prisma.TransactionClient, accountId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`team:${accountId}`}, 0))`;
}
