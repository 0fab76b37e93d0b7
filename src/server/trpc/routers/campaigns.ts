// Campaigns: the form's options, settings, create, edit, pause and resume for whoever may manage
// the advertiser; and the campaigns with their numbers over a range, and one campaign's page
// (daily rows and ads), in the viewer's scope.
import { z } from "zod";
import { ZBulkCampaignOutcome, ZBulkCampaignsInput } from "@/server/campaigns/bulk-campaign-input";
import { bulkChangeCampaigns } from "@/server/campaigns/bulk-change-campaigns";
import { campaignFormOptions } from "@/server/campaigns/campaign-form-options";
import { ZCampaignSettings, ZCreateCampaignInput } from "@/server/campaigns/campaign-input";
import { createCampaign } from "@/server/campaigns/create-campaign";
import { getCampaign } from "@/server/campaigns/get-campaign";
import { listCampaigns } from "@/server/campaigns/list-campaigns";
import { ZAdvertiserPacing, ZCampaignPacing } from "@/server/campaigns/pacing-output";
import { campaignSettings, setCampaignStatus, updateCampaign } from "@/server/campaigns/update-campaign";
import { ZMetrics } from "@/server/store/metrics";
import { ZCampaignDetail, ZCampaignListingRow, ZDayMetrics } from "@/server/store/report-rows";
import { ZAccountRangeInput, ZRangeInput } from "../range-input";
import { figuresProcedure, router, signedInProcedure } from "../trpc";

const byId = z.object({ id: z.string().min(1) });

// Pacing is null on a campaign the viewer sees but does not manage (a publisher's view of the campaigns on its inventory).
const ZCampaignsList = z.object({
  campaigns: z.array(ZCampaignListingRow.extend({ pacing: ZCampaignPacing.nullable() })),
  total: z.int(),
  advertisers: z.array(ZAdvertiserPacing),
  /** The listed campaigns' advertisers by id: whose each campaign is, for a publisher's users too. */
  advertiserNames: z.record(z.string(), z.string()),
  /** The zone the range and the figures' days are local dates in. */
  zone: z.string(),
});
// The period just before the range (as many days), to compare with; null when the campaign has no row for it.
const ZPreviousPeriod = z.object({ startDate: z.string(), endDate: z.string(), total: ZMetrics, daily: z.array(ZDayMetrics) });
const ZCampaignPage = ZCampaignDetail.extend({
  previous: ZPreviousPeriod.nullable(),
  pacing: ZCampaignPacing.nullable(),
  wallet: ZAdvertiserPacing.nullable(),
  /** The zone the range and each day are local dates in. */
  zone: z.string(),
});

export const campaignsRouter = router({
  /** What the campaign form offers: the publishers to run on and the advertiser's products. */
  formOptions: signedInProcedure
    .input(z.object({ advertiserId: z.string().min(1) }))
    .query(({ ctx, input }) => campaignFormOptions({ actor: ctx.viewer, advertiserId: input.advertiserId })),

  settings: signedInProcedure.input(byId).query(({ ctx, input }) => campaignSettings({ actor: ctx.viewer, id: input.id })),

  create: signedInProcedure.input(ZCreateCampaignInput).mutation(async ({ ctx, input }) => {
    const created = await createCampaign({ ...input, actor: ctx.viewer });
    return { id: created.id };
  }),

  update: signedInProcedure.input(byId.extend({ settings: ZCampaignSettings })).mutation(async ({ ctx, input }) => {
    await updateCampaign({ actor: ctx.viewer, ...input });
    return { id: input.id };
  }),

  /** Pause or resume. */
  setStatus: signedInProcedure.input(byId.extend({ status: z.enum(["active", "paused"]) })).mutation(async ({ ctx, input }) => {
    await setCampaignStatus({ actor: ctx.viewer, ...input });
    return { id: input.id, status: input.status };
  }),

  /** One change (pause, resume, a daily budget) to up to 200 campaigns; what became of each. */
  bulkChange: signedInProcedure
    .input(ZBulkCampaignsInput)
    .output(z.object({ results: z.array(ZBulkCampaignOutcome), changed: z.int() }))
    .mutation(({ ctx, input }) => bulkChangeCampaigns({ actor: ctx.viewer, ...input })),

  /** The campaigns in scope (at most 1,000, by impressions) with their totals over the range and today's pacing. */
  list: figuresProcedure
    .input(ZAccountRangeInput)
    .output(ZCampaignsList)
    .query(({ ctx, input }) => listCampaigns({ actor: ctx.viewer, ...input })),

  /** One campaign: its totals, one row per day, its ads, today's pacing and its wallet; NOT_FOUND outside the viewer's scope. */
  get: figuresProcedure
    .input(byId.and(ZRangeInput))
    .output(ZCampaignPage)
    .query(({ ctx, input }) => getCampaign({ actor: ctx.viewer, ...input })),
});
