// Campaigns with their numbers over a range, and one campaign's page (daily rows and ads): the
// report statements of /campaign/v2 and /campaign/:id in the viewer's scope.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { Viewer } from "@/server/accounts/sessions";
import { ZCampaignSettings, ZCreateCampaignInput } from "@/server/campaigns/campaign-input";
import { createCampaign } from "@/server/campaigns/create-campaign";
import { campaignSettings, setCampaignStatus, updateCampaign } from "@/server/campaigns/update-campaign";
import { db } from "@/server/db/client";
import { campaignDetail } from "@/server/reports/campaign-detail.sql";
import { campaignListing } from "@/server/reports/campaign-listing.sql";
import { MAX_PER_PAGE } from "@/server/reports/report-query";
import { assertAccount, router, signedInProcedure } from "../trpc";
import { rangeInput, scopeFor } from "./stats";

/** The campaign's settings when the viewer may manage its advertiser; NOT_FOUND otherwise. */
async function manageable(viewer: Viewer, id: string) {
  const settings = await campaignSettings(id);
  if (!settings) throw new TRPCError({ code: "NOT_FOUND", message: "no such campaign" });
  assertAccount(viewer, settings.advertiserId, "campaign");
  return settings;
}

/**
 * Publishers must be publisher or network accounts, products the advertiser's own. Whose SKU it
 * is on each publisher needs locks and the writes in one transaction, so the domain functions
 * check it (src/server/campaigns/sku-ownership.ts) and their refusal reaches the form as it is.
 */
async function checkReferences(advertiserId: string, publisherIds: string[], productRefs: string[]) {
  const advertiser = await db.account.findUnique({ where: { id: advertiserId }, select: { kind: true } });
  if (advertiser?.kind !== "advertiser") throw new TRPCError({ code: "BAD_REQUEST", message: "campaigns belong to advertiser accounts" });
  const publishers = await db.account.count({ where: { id: { in: publisherIds }, kind: { in: ["publisher", "network"] } } });
  if (publishers !== new Set(publisherIds).size)
    throw new TRPCError({ code: "BAD_REQUEST", message: "publisherIds: every publisher must be a publisher or network account" });
  const products = await db.product.count({ where: { id: { in: productRefs }, advertiserId } });
  if (products !== new Set(productRefs).size)
    throw new TRPCError({ code: "BAD_REQUEST", message: "productRefs: every product must be one of the advertiser's" });
}

export const campaignsRouter = router({
  /** What the campaign form offers: the publishers to run on and the advertiser's products. */
  formOptions: signedInProcedure.input(z.object({ advertiserId: z.string().min(1) })).query(async ({ ctx, input }) => {
    assertAccount(ctx.viewer, input.advertiserId, "account");
    const [publishers, products] = await Promise.all([
      db.account.findMany({ where: { kind: { in: ["publisher", "network"] } }, select: { id: true, name: true, kind: true }, orderBy: { name: "asc" } }),
      db.product.findMany({ where: { advertiserId: input.advertiserId }, select: { id: true, sku: true, name: true }, orderBy: { name: "asc" } }),
    ]);
    return { publishers, products };
  }),

  settings: signedInProcedure.input(z.object({ id: z.string().min(1) })).query(({ ctx, input }) => manageable(ctx.viewer, input.id)),

  create: signedInProcedure.input(ZCreateCampaignInput).mutation(async ({ ctx, input }) => {
    assertAccount(ctx.viewer, input.advertiserId, "account");
    await checkReferences(input.advertiserId, input.publisherIds, input.productRefs ?? []);
    const created = await createCampaign({
      ...input,
      id: undefined,
      startDate: input.startDate.toISOString().slice(0, 10),
      endDate: input.endDate?.toISOString().slice(0, 10),
    });
    return { id: created.id };
  }),

  update: signedInProcedure.input(z.object({ id: z.string().min(1), settings: ZCampaignSettings })).mutation(async ({ ctx, input }) => {
    const current = await manageable(ctx.viewer, input.id);
    await checkReferences(current.advertiserId, input.settings.publisherIds, input.settings.productRefs ?? []);
    await updateCampaign(input.id, {
      ...input.settings,
      startDate: input.settings.startDate.toISOString().slice(0, 10),
      endDate: input.settings.endDate?.toISOString().slice(0, 10),
    });
    return { id: input.id };
  }),

  /** Pause or resume. */
  setStatus: signedInProcedure.input(z.object({ id: z.string().min(1), status: z.enum(["active", "paused"]) })).mutation(async ({ ctx, input }) => {
    await manageable(ctx.viewer, input.id);
    await setCampaignStatus(input.id, input.status);
    return { id: input.id, status: input.status };
  }),

  /** The campaigns in scope (at most 1,000, by impressions) with their totals over the range. */
  list: signedInProcedure.input(z.object({ accountId: z.string().min(1).optional() }).and(rangeInput)).query(async ({ ctx, input }) => {
    const scope = await scopeFor(ctx.viewer, input.accountId);
    const page = await campaignListing(scope, {
      startDate: input.startDate,
      endDate: input.endDate,
      page: 1,
      perPage: MAX_PER_PAGE,
      orderBy: "impressions_total",
      order: "desc",
      download: false,
      ids: {},
    });
    return { campaigns: page.data, total: page.total };
  }),

  /** One campaign: its totals, one row per day and its ads; NOT_FOUND outside the viewer's scope. */
  get: signedInProcedure.input(z.object({ id: z.string().min(1) }).and(rangeInput)).query(async ({ ctx, input }) => {
    const scope = await scopeFor(ctx.viewer, undefined);
    const detail = await campaignDetail(scope, input.id, {
      startDate: input.startDate,
      endDate: input.endDate,
      page: 1,
      perPage: MAX_PER_PAGE,
      orderBy: "impressions_total",
      order: "desc",
      download: false,
      ids: {},
    });
    if (!detail) throw new TRPCError({ code: "NOT_FOUND", message: "no such campaign" });
    return detail;
  }),
});
