// Hand-written SQL: the export's reads of settled rows in ClickHouse, the same rows, columns and
// order as Postgres's (store/postgres/export-batches.sql.ts): counted ad events by receipt time,
// credited order items by the time they were credited, and which orders an advertiser had
// credited in a range. Ids are compared as text, byte by byte, as Postgres's COLLATE "C" does;
// UUIDs are ordered by their text too (ClickHouse orders a UUID by its halves swapped, Postgres by
// its bytes, which is the text's order). Every value is a `{name:Type}` parameter; the text is
// put together only from the fixed fragments below.
import type { EventType } from "@/server/core/export-types";
import type { RowFilter } from "@/server/store/export-rows";
import type { ReportScope } from "@/server/store/report-query";

type Range = { start: Date; end: Date };
export type Params = Record<string, unknown>;
export interface ChQuery {
  query: string;
  params: Params;
}

/** One layout's rows in ClickHouse: `SELECT select FROM table WHERE where [GROUP BY groupBy]`, each row identified by `id`. */
export interface ChLayout {
  select: string;
  table: string;
  where: string;
  params: Params;
  groupBy?: string;
  /** The file's row order. */
  order: string;
  /** A row's identity as text: the same text Postgres's layout gives it. */
  id: string;
  /** Positions in `select` of times, which ClickHouse answers as ISO text. */
  times: number[];
}

const millis = (name: string) => `fromUnixTimestamp64Milli({${name}:Int64}, 'UTC')`;

/** `column` in (start, end], in the scope of the destination's account (as store/postgres/export-batches.sql.ts's `scoped`). */
function inRange(column: string, scope: ReportScope, range: Range): { where: string[]; params: Params } {
  const where = [`${column} > ${millis("start")}`, `${column} <= ${millis("end")}`];
  const params: Params = { start: range.start.getTime(), end: range.end.getTime() };
  if (scope.advertiserId !== null) {
    where.push("advertiser_id = {advertiser:String}");
    params.advertiser = scope.advertiserId;
  }
  if (scope.publisherIds !== null) {
    where.push("publisher_id IN {publishers:Array(String)}");
    params.publishers = scope.publisherIds;
  }
  return { where, params };
}

/** Layout A: counted impressions, views and clicks by receipt time. */
function adEvents(scope: ReportScope, range: Range): ChLayout {
  const { where, params } = inRange("created_at", scope, range);
  return {
    select: "toString(event_id), session_id, user_id, ad_id, campaign_id, request_id, ad_type, placement_name, context, created_at, site",
    table: "ad_events",
    where: [...where, "status = 'counted'"].join(" AND "),
    params,
    order: "created_at, toString(event_id)",
    id: "toString(event_id)",
    times: [9],
  };
}

/**
 * The attributions an advertiser's export holds: lines of credited orders, of the campaign's own
 * SKU. A halo line (another SKU of the advertiser, by the publisher's catalogue) counts only in
 * the halo figures, as Postgres's `creditedIn` leaves it out of layouts B and C.
 */
const CREDITED_LINE = "credited AND match = 'sku'";

/** Layout C: credited order items by the time they were credited; money as doubles, divided as Postgres divides them. */
function orderItems(scope: ReportScope, range: Range): ChLayout {
  const { where, params } = inRange("created_at", scope, range);
  return {
    select: `toString(event_id), session_id, user_id, order_id, product_sku, ad_id, campaign_id, request_id, ad_size, ad_type, placement_name,
             context, event_created_at, price_micros / 1e6, promotional_price_micros / 1e6, quantity, total_value_micros / 1e6`,
    table: "attributions",
    where: [...where, CREDITED_LINE].join(" AND "),
    params,
    order: "created_at, toString(conversion_id), item_position",
    id: "concat(toString(conversion_id), '/', toString(item_position))",
    times: [12],
  };
}

/**
 * Layout B for an advertiser: the orders with a line credited to it in the range, one row each with
 * the time its order was received (the conversions' order, received_at then id); the orders
 * themselves are read from Postgres.
 */
export function creditedOrders(scope: ReportScope, range: Range): ChLayout {
  const { where, params } = inRange("created_at", scope, range);
  return {
    select: "toString(conversion_id) AS id, min(conversion_received_at) AS received_at",
    table: "attributions",
    where: [...where, CREDITED_LINE].join(" AND "),
    params,
    groupBy: "conversion_id",
    order: "received_at, id",
    id: "toString(conversion_id)",
    times: [1],
  };
}

export const EVENT_LAYOUTS = { ad_events: adEvents, order_items: orderItems } as const;

/** The layout's conditions with the filter's, only those in use; `below`: ids below it only. */
function filtered(layout: ChLayout, filter: RowFilter, below?: string): { where: string; params: Params } {
  const where = [`(${layout.where})`];
  const params: Params = { ...layout.params };
  if (below !== undefined) {
    where.push(`${layout.id} < {below:String}`);
    params.below = below;
  }
  if (filter.exclude && filter.exclude.length > 0) {
    where.push(`${layout.id} NOT IN {exclude:Array(String)}`);
    params.exclude = filter.exclude;
  }
  if (filter.after != null) {
    where.push(`${layout.id} > {after:String}`);
    params.after = filter.after;
  }
  if (filter.upTo != null) {
    where.push(`${layout.id} <= {upTo:String}`);
    params.upTo = filter.upTo;
  }
  return { where: where.join(" AND "), params };
}

const grouped = (layout: ChLayout) => (layout.groupBy ? ` GROUP BY ${layout.groupBy}` : "");

/** The filtered rows (with ids below `below`, if given), in the file's order, or in `order` (`id`, `id DESC`), or in none. */
export function rowsQuery(layout: ChLayout, filter: RowFilter, order: string | null = layout.order, below?: string): ChQuery {
  const { where, params } = filtered(layout, filter, below);
  return { query: `SELECT ${layout.select} FROM ${layout.table} WHERE ${where}${grouped(layout)}${order ? ` ORDER BY ${order}` : ""}`, params };
}

export function countQuery(layout: ChLayout, filter: RowFilter): ChQuery {
  const { where, params } = filtered(layout, filter);
  return { query: `SELECT count() AS n FROM ${layout.table} WHERE ${where}`, params };
}

/** The id at `offset` in byte order. */
export function idAtQuery(layout: ChLayout, filter: RowFilter, offset: number): ChQuery {
  const { where, params } = filtered(layout, filter);
  return { query: `SELECT ${layout.id} AS id FROM ${layout.table} WHERE ${where} ORDER BY id LIMIT 1 OFFSET {offset:UInt64}`, params: { ...params, offset } };
}

/** The greatest id below `below` (no row: no answer, where max() would answer ''). */
export function idBeforeQuery(layout: ChLayout, filter: RowFilter, below: string): ChQuery {
  const { where, params } = filtered(layout, filter, below);
  return { query: `SELECT ${layout.id} AS id FROM ${layout.table} WHERE ${where} ORDER BY id DESC LIMIT 1`, params };
}

/**
 * The time that places the row past the first `maxRows` in a batch, if there is one: receipt
 * time for events, credit time for items, and for an advertiser's orders the time each was
 * credited (its latest credited line), as store/postgres/export-batches.sql.ts's EVENT_TIMES.
 */
export function timePastCapQuery(type: Exclude<EventType, "orders"> | "credited_orders", scope: ReportScope, range: Range, maxRows: number): ChQuery {
  const { where, params } = inRange("created_at", scope, range);
  const withCap = { ...params, maxRows };
  if (type === "ad_events") {
    return {
      query: `SELECT created_at AS at FROM ad_events WHERE ${[...where, "status = 'counted'"].join(" AND ")} ORDER BY at LIMIT 1 OFFSET {maxRows:UInt64}`,
      params: withCap,
    };
  }
  const credited = [...where, CREDITED_LINE].join(" AND ");
  if (type === "order_items") {
    return { query: `SELECT created_at AS at FROM attributions WHERE ${credited} ORDER BY at LIMIT 1 OFFSET {maxRows:UInt64}`, params: withCap };
  }
  return {
    query: `SELECT max(created_at) AS at FROM attributions WHERE ${credited} GROUP BY conversion_id ORDER BY at LIMIT 1 OFFSET {maxRows:UInt64}`,
    params: withCap,
  };
}
