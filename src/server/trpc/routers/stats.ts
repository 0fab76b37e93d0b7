// The dashboard's numbers: totals and a daily series over a date range, for the viewer's account
// (members) or any account or all of them (staff), from the same rollups as the report routes.

import { z } from "zod";
import { canonicalZone } from "@/server/core/time-zones";
import { accountHours } from "@/server/pipeline/report/account-hours";
import { accountInvalidTraffic, accountOrdersSetAsideByRule, accountSetAsideOrders, accountStats } from "@/server/pipeline/report/account-stats";
import { pipelineStatus } from "@/server/upkeep/pipeline-status";
import { ZAccountRangeInput } from "../range-input";
import { figuresProcedure, router, staffProcedure } from "../trpc";

const ZHoursInput = ZAccountRangeInput.and(
  z.object({
    campaignId: z.string().min(1).max(100).optional(),
    // Any name of a zone, read as its canonical one (the name report_zones keeps it under).
    timeZone: z
      .string()
      .refine((name) => canonicalZone(name) !== null, "is not an IANA time zone")
      .transform((name) => canonicalZone(name)!)
      .optional(),
  }),
);

export const statsRouter = router({
  /** The range's figures by local weekday and hour (the heatmap): the account's, or one campaign's. */
  hours: figuresProcedure.input(ZHoursInput).query(({ ctx, input }) => accountHours({ actor: ctx.viewer, ...input })),
  overview: figuresProcedure.input(ZAccountRangeInput).query(({ ctx, input }) => accountStats({ actor: ctx.viewer, ...input })),
  /**
   * Orders attribution set aside in the range, for the publishers in scope (all for staff;
   * advertisers have none of their own): how many, and the latest with their reasons.
   */
  setAsideOrders: figuresProcedure.input(ZAccountRangeInput).query(({ ctx, input }) => accountSetAsideOrders({ actor: ctx.viewer, ...input })),
  /**
   * Orders settling set aside by a rule in the range (orders per session, the plausibility
   * limits), for the publishers in scope: how many, per rule, and the latest with their reasons.
   */
  ordersSetAsideByRule: figuresProcedure.input(ZAccountRangeInput).query(({ ctx, input }) => accountOrdersSetAsideByRule({ actor: ctx.viewer, ...input })),
  /** Filtered beacons per day and reason (the invalid traffic screen). */
  invalidTraffic: figuresProcedure.input(ZAccountRangeInput).query(({ ctx, input }) => accountInvalidTraffic({ actor: ctx.viewer, ...input })),
  /** How far behind settling, attribution and every export destination are: the platform's, so staff only. */
  pipeline: staffProcedure.query(({ ctx }) => pipelineStatus({ actor: ctx.viewer })),
});
