// Campaigns with their numbers over a range, and one campaign's page (daily rows and ads): the
// report statements of /campaign/v2 and /campaign/:id in the viewer's scope.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { campaignDetail } from "@/server/reports/campaign-detail.sql";
import { campaignListing } from "@/server/reports/campaign-listing.sql";
import { MAX_PER_PAGE } from "@/server/reports/report-query";
import { router, signedInProcedure } from "../trpc";
import { rangeInput, scopeFor } from "./stats";

export const campaignsRouter = router({
  /** The campaigns in scope (at most 1,000, by impressions) with their totals over the range. */
  list: signedInProcedure.input(z.object({ accountId: z.string().min(1).optional() }).and(rangeInput)).query(async ({ ctx, input }) => {
    const scope = await scopeFor(ctx.viewer, input.accountId);
    const page = await campaignListing(scope, { startDate: input.startDate, endDate: input.endDate, page: 1, perPage: MAX_PER_PAGE, orderBy: "impressions_total", order: "desc", download: false, ids: {} });
    return { campaigns: page.data, total: page.total };
  }),

  /** One campaign: its totals, one row per day and its ads; NOT_FOUND outside the viewer's scope. */
  get: signedInProcedure.input(z.object({ id: z.string().min(1) }).and(rangeInput)).query(async ({ ctx, input }) => {
    const scope = await scopeFor(ctx.viewer, undefined);
    const detail = await campaignDetail(scope, input.id, { startDate: input.startDate, endDate: input.endDate, page: 1, perPage: MAX_PER_PAGE, orderBy: "impressions_total", order: "desc", download: false, ids: {} });
    if (!detail) throw new TRPCError({ code: "NOT_FOUND", message: "no such campaign" });
    return detail;
  }),
});
