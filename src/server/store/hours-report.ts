// The hours report (dayparting): a range's figures by local weekday and hour, whatever the store.
// The rows as a schema (the source of their type, of the API document and of the contract tests),
// and what a read answers: every one of the 168 cells, and from when the zone's hours are counted.
import { z } from "zod";
import { ZMetrics } from "./metrics";

export const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
export const HOURS_IN_WEEK = 7 * 24;

export const ZHourRow = ZMetrics.extend({
  weekday: z.int().min(0).max(6).describe("The local weekday: 0 is Sunday, 6 Saturday."),
  hour: z.int().min(0).max(23).describe("The local hour the events fell in: 14 is 14:00 to 15:00."),
}).meta({ title: "Hour of the week" });
export type HourRow = z.infer<typeof ZHourRow>;

export interface HoursReport {
  /** The zone the weekdays and hours are local to. */
  zone: string;
  /** The moment this zone's hours are counted from: nothing before it is in any cell. */
  hoursSince: Date;
  /** All 168 cells, weekday then hour, zeros where nothing happened. */
  rows: HourRow[];
}

/** The filters of an hours read beside the caller's scope: the route's ids. */
export interface HoursFilter {
  startDate: string;
  endDate: string;
  zone: string;
  advertiserId?: string;
  publisherId?: string;
  campaignId?: string;
}
