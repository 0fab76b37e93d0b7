// Export destinations and their runs, for the dashboard's export screens: each procedure calls
// src/server/pipeline/export/destinations/destinations.ts as the viewer. Secrets never leave: views carry the mask.
import { z } from "zod";
import { EXPORT_TYPES } from "@/server/core/export-types";
import { ZDestinationInput } from "@/server/pipeline/export/destinations/destination-input";
import {
  createDestination,
  deleteDestination,
  destinationRuns,
  getDestination,
  listDestinations,
  testDestination,
  updateDestination,
} from "@/server/pipeline/export/destinations/destinations";
import { runDestinationNow } from "@/server/pipeline/export/job/run-exports";
import { router, signedInProcedure } from "../trpc";

const byId = z.object({ id: z.string().min(1) });

export const exportDestinationsRouter = router({
  /** The viewer's account's destinations for a member; any account's, or all, for staff. */
  list: signedInProcedure
    .input(z.object({ accountId: z.string().min(1).optional() }).optional())
    .query(({ ctx, input }) => listDestinations(input?.accountId, { actor: ctx.viewer })),

  get: signedInProcedure.input(byId).query(({ ctx, input }) => getDestination(input.id, { actor: ctx.viewer })),

  create: signedInProcedure.input(ZDestinationInput).mutation(({ ctx, input }) => createDestination(input, { actor: ctx.viewer })),

  update: signedInProcedure
    .input(byId.extend({ destination: ZDestinationInput }))
    .mutation(({ ctx, input }) => updateDestination(input.id, input.destination, { actor: ctx.viewer })),

  delete: signedInProcedure.input(byId).mutation(async ({ ctx, input }) => {
    await deleteDestination(input.id, { actor: ctx.viewer });
    return { id: input.id };
  }),

  /** Writes and deletes a probe object; the S3 error in plain words when it fails. */
  testConnection: signedInProcedure.input(byId).mutation(({ ctx, input }) => testDestination({ actor: ctx.viewer, id: input.id })),

  /** Delivers what can be delivered now (events up to 5 minutes ago, complete days), without waiting for the schedule. */
  runNow: signedInProcedure
    .input(byId.extend({ type: z.enum(EXPORT_TYPES).optional() }))
    .mutation(({ ctx, input }) => runDestinationNow({ actor: ctx.viewer, ...input })),

  /** The run history, newest first. */
  runs: signedInProcedure
    .input(byId.extend({ limit: z.number().int().min(1).max(200).default(50) }))
    .query(({ ctx, input }) => destinationRuns({ actor: ctx.viewer, ...input })),
});
