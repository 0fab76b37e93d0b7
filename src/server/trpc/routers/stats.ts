// The dashboard's numbers: totals and a daily series over a date range, for the viewer's account
// (members) or any account or all of them (staff), from the same rollups as the report routes.
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { Viewer } from "@/server/accounts/sessions";
import { setAsideOrders } from "@/server/attribution/set-aside-orders";
import { metricsOverRange } from "@/server/reports/daily-metrics.sql";
import { invalidTrafficByDay } from "@/server/reports/invalid-traffic.sql";
import { MAX_RANGE_DAYS } from "@/server/reports/report-query";
import { accountCaller, type ReportScope, reportScope, viewerCaller } from "@/server/reports/report-scope";
import { assertAccount, router, signedInProcedure } from "../trpc";

const day = z.iso.date();
export const rangeInput = z
  .object({ startDate: day, endDate: day })
  .refine((r) => r.startDate <= r.endDate, { message: "the start is after the end", path: ["startDate"] })
  .refine((r) => Date.parse(r.endDate) - Date.parse(r.startDate) < MAX_RANGE_DAYS * 86_400_000, {
    message: `at most ${MAX_RANGE_DAYS} days`,
    path: ["endDate"],
  });

/**
 * The report scope of an account the viewer may see; without one, the viewer's own: every account
 * for staff, the member's account, and nothing (NOT_FOUND) for anyone else.
 */
export async function scopeFor(viewer: Viewer, accountId: string | undefined): Promise<ReportScope> {
  if (accountId !== undefined) assertAccount(viewer, accountId, "account");
  const caller = accountId !== undefined ? await accountCaller(accountId) : await viewerCaller(viewer);
  if (!caller) throw new TRPCError({ code: "NOT_FOUND", message: "no such account" });
  return reportScope(caller);
}

export const statsRouter = router({
  overview: signedInProcedure
    .input(z.object({ accountId: z.string().min(1).optional() }).and(rangeInput))
    .query(async ({ ctx, input }) => metricsOverRange(await scopeFor(ctx.viewer, input.accountId), input)),
  /**
   * Orders attribution set aside in the range, for the publishers in scope (all for staff;
   * advertisers have none of their own): how many, and the latest with their reasons.
   */
  setAsideOrders: signedInProcedure.input(z.object({ accountId: z.string().min(1).optional() }).and(rangeInput)).query(async ({ ctx, input }) => {
    const scope = await scopeFor(ctx.viewer, input.accountId);
    if (scope.advertiserId !== null) return { total: 0, latest: [] };
    return setAsideOrders(input, scope.publisherIds);
  }),
  /** Filtered beacons per day and reason (the invalid traffic screen). */
  invalidTraffic: signedInProcedure
    .input(z.object({ accountId: z.string().min(1).optional() }).and(rangeInput))
    .query(async ({ ctx, input }) => invalidTrafficByDay(await scopeFor(ctx.viewer, input.accountId), input)),
});
