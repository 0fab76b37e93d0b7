// How far back a conversion looks for a touch: per campaign type (everyone signed in may read it),
// per campaign, and the log of who changed them. Account managers change them.
import { listActivity } from "@/server/activity/activity-log";
import {
  attributionWindows,
  campaignWindowsFor,
  setAttributionWindows,
  setCampaignWindows,
  ZSetAttributionWindowsInput,
  ZSetCampaignWindowsInput,
} from "@/server/pipeline/attribute/attribution-windows";
import { router, signedInProcedure, staffProcedure } from "../trpc";

export const attributionRouter = router({
  windows: signedInProcedure.query(() => attributionWindows()),
  setWindows: staffProcedure.input(ZSetAttributionWindowsInput).mutation(async ({ ctx, input }) => {
    await setAttributionWindows({ actor: ctx.viewer, ...input });
    return attributionWindows();
  }),
  campaignWindows: signedInProcedure
    .input(ZSetCampaignWindowsInput.pick({ campaignId: true }))
    .query(({ ctx, input }) => campaignWindowsFor({ actor: ctx.viewer, campaignId: input.campaignId })),
  setCampaignWindows: staffProcedure.input(ZSetCampaignWindowsInput).mutation(({ ctx, input }) => setCampaignWindows({ actor: ctx.viewer, ...input })),
  changes: staffProcedure.query(({ ctx }) => listActivity({ actor: ctx.viewer, limit: 20 })),
});
