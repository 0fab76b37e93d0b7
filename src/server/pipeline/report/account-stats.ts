// The dashboard's numbers for an account the actor may see, or for the actor's own view (every
// account for staff): totals and a daily series, invalid traffic, the orders attribution set
// aside and those settling set aside by a rule, from the same rollups and statements as the report routes.

import type { Actor } from "@/server/accounts/actor";
import { previousRange } from "@/server/core/days";
import { FILTERED_STATUSES } from "@/server/core/event-status";
import { type SetAsideOrder, setAsideOrders } from "@/server/pipeline/attribute/set-aside-orders";
import { type OrderSetAsideByRule, ordersSetAsideByRule } from "@/server/pipeline/settle/set-aside-events";
import { store } from "@/server/store";
import { reportScopeOf } from "./report-scope";
import { viewZone } from "./view-zone";

interface StatsRequest {
  actor: Actor;
  accountId?: string;
  /** YYYY-MM-DD, inclusive, local dates in `timeZone` (left out: the view's zone, view-zone.ts). */
  startDate: string;
  endDate: string;
  timeZone?: string;
}

/** The range in the zone the request reads in (asked for, or the view's). */
async function zonedRange({ actor, accountId, startDate, endDate, timeZone }: StatsRequest) {
  const { zone } = await viewZone({ actor, accountId, asked: timeZone });
  return { startDate, endDate, zone };
}

/**
 * Totals and days of the range, the same of the period just before it (as many days) to compare
 * with, and how many beacons the range filtered (bots, repeats, the other invalid-traffic
 * reasons): with no impression counted, that tells "no traffic" from "all of it filtered".
 */
export async function accountStats(request: StatsRequest) {
  const scope = await reportScopeOf(request);
  const range = await zonedRange(request);
  const previous = { ...previousRange(range), zone: range.zone };
  const [current, before, invalid] = await Promise.all([
    store().reports.metricsOverRange(scope, range),
    store().reports.metricsOverRange(scope, previous),
    store().reports.invalidTrafficByDay(scope, range),
  ]);
  const filteredEvents = invalid.reduce((sum, day) => sum + FILTERED_STATUSES.reduce((daySum, { column }) => daySum + day[column], 0), 0);
  return { ...current, previous: { startDate: previous.startDate, endDate: previous.endDate, ...before }, filteredEvents, zone: range.zone };
}

/** Filtered beacons per day (local dates in the view's zone) and reason. */
export async function accountInvalidTraffic(request: StatsRequest) {
  return store().reports.invalidTrafficByDay(await reportScopeOf(request), await zonedRange(request));
}

/**
 * Orders attribution set aside in the range, of the publishers in scope (every one for staff):
 * how many, and the latest with their reasons. Orders are publishers' data: an advertiser has
 * none of its own, and its scope, which is not limited to publishers, must not read as "all".
 */
export async function accountSetAsideOrders({ actor, accountId, startDate, endDate }: StatsRequest): Promise<{ total: number; latest: SetAsideOrder[] }> {
  const scope = await reportScopeOf({ actor, accountId });
  if (scope.advertiserId !== null) return { total: 0, latest: [] };
  return setAsideOrders({ startDate, endDate }, scope.publisherIds);
}

/**
 * Orders settling set aside by a rule (orders per session, the plausibility limits) in the range,
 * of the publishers in scope (every one for staff): how many, per rule, and the latest with their
 * reasons. Like attribution's, they are publishers' data: an advertiser sees none.
 */
export async function accountOrdersSetAsideByRule({
  actor,
  accountId,
  startDate,
  endDate,
}: StatsRequest): Promise<{ total: number; byRule: Record<string, number>; latest: OrderSetAsideByRule[] }> {
  const scope = await reportScopeOf({ actor, accountId });
  if (scope.advertiserId !== null) return { total: 0, byRule: {}, latest: [] };
  return ordersSetAsideByRule({ startDate, endDate }, scope.publisherIds);
}
