// What a view in the address means: the range, the sort and the columns read from search
// params, each falling back to its default when the address holds something else (a hand-edited
// or outdated link opens the default view rather than an error).
import { daysBetween, isIsoDay } from "@/server/core/days";
import { MAX_RANGE_DAYS } from "@/server/store/report-query";

export type Range = { startDate: string; endDate: string };
export type Sort = { id: string; descending: boolean };

/** `from` and `to` when both are real days in order and not too far apart, else the fallback. */
export function rangeFromParams(from: string | null, to: string | null, fallback: Range): Range {
  if (!from || !to || !isIsoDay(from) || !isIsoDay(to) || from > to || daysBetween(from, to) >= MAX_RANGE_DAYS) return fallback;
  return { startDate: from, endDate: to };
}

/** `sort=field` (ascending) or `sort=-field` (descending), for a field of the table only. */
export function sortFromParam(value: string | null, fields: readonly string[], fallback: Sort): Sort {
  if (!value) return fallback;
  const descending = value.startsWith("-");
  const id = descending ? value.slice(1) : value;
  return fields.includes(id) ? { id, descending } : fallback;
}

export const sortToParam = (sort: Sort) => `${sort.descending ? "-" : ""}${sort.id}`;

/** `cols=a,b,c`: the table's columns named, in the table's order; none known, the fallback. */
export function columnsFromParam(value: string | null, fields: readonly string[], fallback: readonly string[]): string[] {
  const named = new Set((value ?? "").split(",").filter(Boolean));
  const chosen = fields.filter((field) => named.has(field));
  return chosen.length > 0 ? chosen : [...fallback];
}
