// Zones: the one a dashboard view reads its days and writes its times in, and those staff may
// choose from (the report tables' zones): pipeline/report/view-zone.ts decides.
import { z } from "zod";
import { viewZone } from "@/server/pipeline/report/view-zone";
import { router, signedInProcedure } from "../trpc";

export const zonesRouter = router({
  /** The zone of a view (an account's screens, a campaign's, or the viewer's own) and the zones reports are kept in. */
  view: signedInProcedure
    .input(z.object({ accountId: z.string().min(1).optional(), campaignId: z.string().min(1).optional() }))
    .output(z.object({ zone: z.string(), kept: z.array(z.string()) }))
    .query(({ ctx, input }) => viewZone({ actor: ctx.viewer, ...input })),
});
