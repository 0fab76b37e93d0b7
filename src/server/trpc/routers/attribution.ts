// How far back a conversion looks for a touch: per campaign type (everyone signed in may read it),
// per campaign, and the log of who changed them. Account managers change them.
import { listActivity } from "@/server/accounts/list-activity";
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
  /** The latest window changes, platform-wide and per campaign (the whole log: activity.list). */
  changes: staffProcedure.query(
    async ({ ctx }) => (await listActivity({ actor: ctx.viewer, actionPrefix: ["attribution.windows", "campaign.windows"], limit: 20 })).entries,
  ),
});
