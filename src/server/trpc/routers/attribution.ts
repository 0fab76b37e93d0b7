// How far back a conversion looks for a touch: per campaign type (everyone signed in may read it),
// per campaign, and the log of who changed them. Account managers change them.
import { z } from "zod";
import { assertMayAccess } from "@/server/accounts/actor";
import { listActivity } from "@/server/activity/activity-log";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import {
  attributionWindows,
  setAttributionWindows,
  setCampaignWindows,
  windowsOfCampaign,
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
  campaignWindows: signedInProcedure.input(z.object({ campaignId: z.string().min(1).max(256) })).query(async ({ ctx, input }) => {
    const campaign = await db.campaign.findUnique({ where: { id: input.campaignId }, select: { advertiserId: true } });
    if (!campaign) throw new TallyError("not_found", "no such campaign");
    assertMayAccess(ctx.viewer, campaign.advertiserId, "campaign");
    return (await windowsOfCampaign(input.campaignId))!;
  }),
  setCampaignWindows: staffProcedure.input(ZSetCampaignWindowsInput).mutation(({ ctx, input }) => setCampaignWindows({ actor: ctx.viewer, ...input })),
  changes: staffProcedure.query(({ ctx }) => listActivity({ actor: ctx.viewer, limit: 20 })),
});
