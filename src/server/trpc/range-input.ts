// The date range of the dashboard's figures: local dates, inclusive, at most MAX_RANGE_DAYS long,
// in the zone asked for (`timeZone`, one the report tables keep) or the view's own
// (pipeline/report/view-zone.ts).
import { z } from "zod";
import { daysBetween } from "@/server/core/days";
import { MAX_ZONE_LENGTH } from "@/server/core/time-zones";
import { MAX_RANGE_DAYS } from "@/server/store/report-query";

const day = z.iso.date();
export const ZRangeInput = z
  .object({ startDate: day, endDate: day, timeZone: z.string().min(1).max(MAX_ZONE_LENGTH).optional() })
  .refine((r) => r.startDate <= r.endDate, { message: "the start is after the end", path: ["startDate"] })
  .refine((r) => daysBetween(r.startDate, r.endDate) < MAX_RANGE_DAYS, {
    message: `at most ${MAX_RANGE_DAYS} days`,
    path: ["endDate"],
  });

/** An account the viewer may see, or (left out) the viewer's own view, over a range. */
export const ZAccountRangeInput = z.object({ accountId: z.string().min(1).optional() }).and(ZRangeInput);
