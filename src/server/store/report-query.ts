// The query parameters shared by the report routes (docs/interface-decisions.md §5): a date range in a
// time zone, paging, sorting, the ids that fit the route, and download. Anything else, or any malformed value, is a 400 that
// names the parameter: a report quietly computed over the wrong range is worse than an error.

import { addDays, isIsoDay } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { canonicalZone, daysFromLocalToday, UTC } from "@/server/core/time-zones";

export const REPORT_ID_PARAMETERS = ["advertiser_id", "publisher_id", "campaign_id", "ad_id"] as const;
export type ReportIdParameter = (typeof REPORT_ID_PARAMETERS)[number];

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 1000;
export const DEFAULT_RANGE_DAYS = 30;
// A year and a day: reports read daily rows, so longer ranges only cost more without a use.
export const MAX_RANGE_DAYS = 366;
export const MAX_PAGE = 1_000_000;
export const DEFAULT_ORDER = "desc";
export const MAX_ID_LENGTH = 100;

/** Which rows a report may read: the reader's account's (docs/interface-decisions.md §1); null is no limit on that side. */
export interface ReportScope {
  /** Rows of this advertiser only. */
  advertiserId: string | null;
  /** Rows of these publishers only (a publisher, or a network and its sub-publishers). */
  publisherIds: string[] | null;
  /** Publishers whose campaigns are listed even without rows in the range (targeting). */
  targetedPublisherIds: string[] | null;
}

export interface ReportQuery<OrderBy extends string> {
  /** YYYY-MM-DD, inclusive, local dates in `zone`. */
  startDate: string;
  endDate: string;
  /** The IANA zone (canonical name) the range and each row's day are local dates in; one the store reads exactly (ReadableZone). */
  zone: string;
  page: number;
  perPage: number;
  orderBy: OrderBy;
  order: "asc" | "desc";
  download: boolean;
  ids: Partial<Record<ReportIdParameter, string>>;
}

/** A range of local dates in a zone, both days included: what every report read covers. */
export interface ZonedRange {
  startDate: string;
  endDate: string;
  zone: string;
}

/**
 * A zone the store reads reports in exactly. Its own rows hold the events from a UTC midnight on;
 * the days before that are read as UTC days (`utcDaysBefore`, YYYY-MM-DD: the first day that is
 * not; null for UTC itself, every day of which is its own).
 */
export interface ReadableZone {
  zone: string;
  utcDaysBefore: string | null;
}

/** The zones a report may be read in, and the one it is read in when the request names none. */
export interface ReportZones {
  /** The caller's account's zone (staff: the operator's), if the store reads it; else UTC. */
  defaultZone: string;
  readable: readonly ReadableZone[];
  /** Kept zones Postgres's tz database no longer knows (store/unknown-zones.sql.ts): refused by name. */
  unknown?: readonly string[];
}

/** UTC only: what a store reads when it keeps no other zone. */
export const UTC_ONLY: ReportZones = { defaultZone: UTC, readable: [{ zone: UTC, utcDaysBefore: null }] };

/**
 * The kept zone that is `zone`, by canonical name: the runtime's tz database may name a zone by
 * another of its links (ICU calls Asia/Kathmandu Asia/Katmandu), and the report tables by the name kept.
 */
function keptZone(zone: string, readable: readonly ReadableZone[]): string | null {
  const canonical = canonicalZone(zone);
  return readable.find((z) => z.zone === zone || (canonical !== null && canonicalZone(z.zone) === canonical))?.zone ?? null;
}

/** The caller's zones: `accountZone` by default when the store reads it, UTC otherwise (and the answer says which). */
export function reportZones(accountZone: string, readable: readonly ReadableZone[], unknown: readonly string[] = []): ReportZones {
  return { defaultZone: keptZone(accountZone, readable) ?? UTC, readable, unknown };
}

/** The first day that is `zone`'s own in a list of readable zones (none for UTC, an absent list or zone). */
export function firstOwnDayIn(readable: readonly ReadableZone[] | undefined, zone: string): string | null {
  return readable?.find((z) => z.zone === zone)?.utcDaysBefore ?? null;
}

/** The first day of `zone` that is its own when a range reaches before it (the answer names it), else null. */
export function utcDaysBeforeOf(range: ZonedRange, zones: ReportZones): string | null {
  const before = firstOwnDayIn(zones.readable, range.zone);
  return before !== null && range.startDate < before ? before : null;
}

export interface ReportQuerySpec<OrderBy extends string> {
  /** The id parameters this route accepts. */
  ids: readonly ReportIdParameter[];
  /** Columns `order_by` may name; the first is the default. */
  orderBy: readonly [OrderBy, ...OrderBy[]];
  defaultOrder?: "asc" | "desc";
  /** false for a route that answers one object: no page, per_page, order_by or order. */
  paged?: boolean;
}

const bad = (message: string) => new TallyError("bad_request", message);

function parseDay(name: string, value: string): string {
  if (!isIsoDay(value)) throw bad(`${name} must be a date written YYYY-MM-DD, not '${value}'`);
  return value;
}

function parsePositiveInteger(name: string, value: string, max: number): number {
  if (!/^[1-9]\d{0,6}$/.test(value) || Number(value) > max) throw bad(`${name} must be a whole number from 1 to ${max}, not '${value}'`);
  return Number(value);
}

/** Every query parameter a route of this spec takes, in the order its 400 lists them (and the API document, too). */
export function reportQueryParameterNames(spec: ReportQuerySpec<string>): string[] {
  const paging = spec.paged === false ? [] : ["page", "per_page", "order_by", "order"];
  return ["start_date", "end_date", "time_zone", ...paging, "download", ...spec.ids];
}

/**
 * The zone a report is read in: `time_zone` canonicalised, or the caller's default. A zone the
 * store does not read exactly is refused, naming those it does: nothing inexact is served; a kept
 * zone Postgres no longer knows is refused as unavailable (503), by name, rather than read with holes.
 */
export function parseTimeZone(value: string | undefined, zones: ReportZones): string {
  if (value === undefined) return zones.defaultZone;
  const lost = zones.unknown?.find((z) => z === value.trim() || (canonicalZone(value) !== null && canonicalZone(value) === canonicalZone(z)));
  if (lost !== undefined)
    throw new TallyError(
      "unavailable",
      `time_zone ${lost} cannot be read now: the database's time zone data no longer knows it, so its report rows are not kept; read in UTC or another zone, and ask Tally's operator to restore or replace it`,
    );
  const zone = canonicalZone(value);
  if (zone === null) throw bad(`time_zone must be an IANA time zone name such as America/Sao_Paulo, not '${value}'`);
  const kept = keptZone(value, zones.readable);
  if (kept === null) throw bad(`time_zone must be one of: ${zones.readable.map((z) => z.zone).join(", ")}`);
  return kept;
}

/**
 * Parses a report route's query string; 400 naming the parameter for anything wrong. Dates are
 * local dates in the zone read in (`zones`); the default range is the last 30 local days.
 */
export function parseReportQuery<OrderBy extends string>(
  params: URLSearchParams,
  spec: ReportQuerySpec<OrderBy>,
  zones: ReportZones,
  now = new Date(),
): ReportQuery<OrderBy> {
  const known = new Set<string>(reportQueryParameterNames(spec));
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!known.has(name)) throw bad(`unknown parameter '${name}'; this route takes ${[...known].join(", ")}`);
    if (seen.has(name)) throw bad(`${name} is given more than once`);
    seen.add(name);
  }
  const get = (name: string) => params.get(name) ?? undefined;

  const zone = parseTimeZone(get("time_zone"), zones);
  const endDate = get("end_date") !== undefined ? parseDay("end_date", get("end_date")!) : daysFromLocalToday(0, zone, now);
  const startDate = get("start_date") !== undefined ? parseDay("start_date", get("start_date")!) : addDays(endDate, -(DEFAULT_RANGE_DAYS - 1));
  if (startDate > endDate) throw bad(`start_date (${startDate}) is after end_date (${endDate})`);
  if (addDays(startDate, MAX_RANGE_DAYS - 1) < endDate) throw bad(`start_date to end_date spans more than ${MAX_RANGE_DAYS} days`);

  const orderByValue = get("order_by") ?? spec.orderBy[0];
  if (!(spec.orderBy as readonly string[]).includes(orderByValue)) throw bad(`order_by must be one of ${spec.orderBy.join(", ")}, not '${orderByValue}'`);
  const order = get("order") ?? spec.defaultOrder ?? DEFAULT_ORDER;
  if (order !== "asc" && order !== "desc") throw bad(`order must be asc or desc, not '${order}'`);
  const download = get("download") ?? "false";
  if (download !== "true" && download !== "false") throw bad(`download must be true or false, not '${download}'`);

  const ids: Partial<Record<ReportIdParameter, string>> = {};
  for (const name of spec.ids) {
    const value = get(name);
    if (value === undefined) continue;
    if (value.length === 0 || value.length > MAX_ID_LENGTH) throw bad(`${name} must be an id of 1 to ${MAX_ID_LENGTH} characters`);
    ids[name] = value;
  }
  return {
    startDate,
    endDate,
    zone,
    page: get("page") !== undefined ? parsePositiveInteger("page", get("page")!, MAX_PAGE) : 1,
    perPage: get("per_page") !== undefined ? parsePositiveInteger("per_page", get("per_page")!, MAX_PER_PAGE) : DEFAULT_PER_PAGE,
    orderBy: orderByValue as OrderBy,
    order,
    download: download === "true",
    ids,
  };
}
