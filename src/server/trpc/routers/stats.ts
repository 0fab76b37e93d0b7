// The dashboard's numbers: totals and a daily series over a date range, for the viewer's account
// (members) or any account or all of them (staff), from the same rollups as the report routes.

import { accountInvalidTraffic, accountOrdersSetAsideByRule, accountSetAsideOrders, accountStats } from "@/server/pipeline/report/account-stats";
import { pipelineStatus } from "@/server/upkeep/pipeline-status";
import { ZAccountRangeInput } from "../range-input";
import { figuresProcedure, router, staffProcedure } from "../trpc";

export const statsRouter = router({
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
