// Export destinations and their runs, for the dashboard's export screens: each procedure checks
// the viewer's account, then calls src/server/export/. Secrets never leave: views carry the mask.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { db } from "@/server/db/client";
import {
  createDestination,
  deleteDestination,
  destinationInput,
  destinationWithSecret,
  getDestination,
  listDestinations,
  updateDestination,
} from "@/server/export/destinations";
import { EXPORT_TYPES } from "@/server/export/layouts";
import { runDueExports } from "@/server/export/run-exports";
import { testConnection } from "@/server/export/s3";
import { assertAccount, router, signedInProcedure } from "../trpc";

const byId = z.object({ id: z.string().min(1) });

async function visibleDestination(viewer: Parameters<typeof assertAccount>[0], id: string) {
  const destination = await getDestination(id);
  if (!destination) throw new TRPCError({ code: "NOT_FOUND", message: "no such export destination" });
  assertAccount(viewer, destination.accountId, "export destination");
  return destination;
}

export const exportDestinationsRouter = router({
  list: signedInProcedure.input(z.object({ accountId: z.string().min(1).optional() }).optional()).query(async ({ ctx, input }) => {
    // Members see their account's; staff any account's, or all.
    const accountId = ctx.viewer.role === "staff" ? input?.accountId : (ctx.viewer.accountId ?? "\u0000");
    if (input?.accountId) assertAccount(ctx.viewer, input.accountId, "account");
    return listDestinations(accountId);
  }),

  get: signedInProcedure.input(byId).query(({ ctx, input }) => visibleDestination(ctx.viewer, input.id)),

  create: signedInProcedure.input(destinationInput).mutation(async ({ ctx, input }) => {
    assertAccount(ctx.viewer, input.accountId, "account");
    return createDestination(input);
  }),

  update: signedInProcedure.input(z.object({ id: z.string().min(1), destination: destinationInput })).mutation(async ({ ctx, input }) => {
    await visibleDestination(ctx.viewer, input.id);
    assertAccount(ctx.viewer, input.destination.accountId, "account");
    return updateDestination(input.id, input.destination);
  }),

  delete: signedInProcedure.input(byId).mutation(async ({ ctx, input }) => {
    await visibleDestination(ctx.viewer, input.id);
    await deleteDestination(input.id);
    return { id: input.id };
  }),

  /** Writes and deletes a probe object; the S3 error in plain words when it fails. */
  testConnection: signedInProcedure.input(byId).mutation(async ({ ctx, input }) => {
    await visibleDestination(ctx.viewer, input.id);
    return testConnection((await destinationWithSecret(input.id))!);
  }),

  /** Delivers what can be delivered now (events up to 5 minutes ago, complete days), without waiting for the schedule. */
  runNow: signedInProcedure.input(z.object({ id: z.string().min(1), type: z.enum(EXPORT_TYPES).optional() })).mutation(async ({ ctx, input }) => {
    await visibleDestination(ctx.viewer, input.id);
    const { runs, unfinished } = await runDueExports({ destinationId: input.id, types: input.type ? [input.type] : undefined, eager: true, budgetMs: 240_000 });
    return { runs, unfinished };
  }),

  /** The run history, newest first. */
  runs: signedInProcedure.input(z.object({ id: z.string().min(1), limit: z.number().int().min(1).max(200).default(50) })).query(async ({ ctx, input }) => {
    await visibleDestination(ctx.viewer, input.id);
    const runs = await db.exportRun.findMany({ where: { destinationId: input.id }, orderBy: { startedAt: "desc" }, take: input.limit });
    return runs.map((r) => ({
      id: r.id,
      type: r.type,
      status: r.status,
      backfill: r.backfill,
      rangeStart: r.rangeStart,
      rangeEnd: r.rangeEnd,
      attempt: r.attempt,
      rows: Number(r.rows),
      files: r.files,
      bytes: Number(r.bytes),
      error: r.error,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
      durationMs: r.durationMs,
      nextAttemptAt: r.nextAttemptAt,
      setAsideRows: r.setAsideRows,
      setAside: r.setAside as { id: string; reason: string; rows: number }[],
    }));
  }),
});
