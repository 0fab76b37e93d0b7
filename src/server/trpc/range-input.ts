// The date range of the dashboard's figures: UTC days, inclusive, at most MAX_RANGE_DAYS long.
import { z } from "zod";
import { daysBetween } from "@/server/core/days";
import { MAX_RANGE_DAYS } from "@/server/store/report-query";

const day = z.iso.date();
export const ZRangeInput = z
  .object({ startDate: day, endDate: day })
  .refine((r) => r.startDate <= r.endDate, { message: "the start is after the end", path: ["startDate"] })
  .refine((r) => daysBetween(r.startDate, r.endDate) < MAX_RANGE_DAYS, {
    message: `at most ${MAX_RANGE_DAYS} days`,
    path: ["endDate"],
  });

/** An account the viewer may see, or (left out) the viewer's own view, over a range. */
export const ZAccountRangeInput = z.object({ accountId: z.string().min(1).optional() }).and(ZRangeInput);
