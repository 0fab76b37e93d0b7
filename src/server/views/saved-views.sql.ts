// Hand-written SQL: a user's saved views are counted and added under an advisory lock of that user, so two saves at once cannot both pass the limit; Prisma has no advisory locks.
import type { Prisma } from "@/server/db/generated/client";

/** Holds the user's saved-views lock until the transaction ends. */
export async function lockSavedViewsOf(tx: Prisma.TransactionClient, userId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`saved_views:${userId}`}, 0))`;
}
