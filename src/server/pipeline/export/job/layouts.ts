// What each export type holds (docs/interface.md §2.5, docs/interface-decisions.md §6): the three event layouts as Parquet
// columns with the SQL that reads a batch of them, and the three aggregated layouts as CSV columns
// over the report statements, so an exported day has the numbers the reports show for it.
// Hand-written SQL: batches are ranges of receipt time read through a cursor in a fixed order, so
// a retried batch writes the same rows into the same files. Each layout also names a row's
// identity (`id`): text, unique in a batch, read from stored columns only. A row the export
// cannot read or encode is found by splitting the batch into ranges of ids and set aside by its
// id (poison.ts); ids being unique and totally ordered is what makes the splitting end.
import type { CsvValue } from "@/server/formats/csv";
import type { ParquetColumn } from "@/server/formats/parquet/parquet-writer";
import type { AggregateType, EventType } from "@/server/pipeline/export/export-types";
import type { ReportScope } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import type { ReportStatement } from "@/server/store/postgres/report-runner";
import type { ReportQuery } from "@/server/store/report-query";

const text = (name: string, nullable = false): ParquetColumn => ({ name, type: "string", nullable });
const time = (name: string): ParquetColumn => ({ name, type: "timestamp", nullable: false });
const double = (name: string): ParquetColumn => ({ name, type: "double", nullable: false });

/** A batch's rows as SQL: `SELECT select FROM from WHERE where ORDER BY order`, each row identified by `id`. */
export interface BatchParts {
  select: string;
  from: string;
  where: string;
  /** The file's row order; null: the order `from` already has (a report statement's). */
  order: string | null;
  /** A row's identity, as text: unique in the batch, from stored columns only (so reading it never fails on a row's data). */
  id: string;
}

export interface EventLayout {
  columns: ParquetColumn[];
  /** The batch's rows: $1 < time <= $2, then the scope ($3 advertiser, $4 publishers). */
  parts: (scope: ReportScope) => BatchParts;
  /** One row per exported row with the time that places it in a batch, as `at` (same parameters): where a capped batch ends. */
  times: (scope: ReportScope) => string;
}

// The scope of the destination's account: an advertiser its own campaigns' rows; a publisher its
// inventory's; a network its own and its sub-publishers' (docs/interface-decisions.md §1).
const scoped = (alias: string) => `($3::text IS NULL OR ${alias}.advertiser_id = $3) AND ($4::text[] IS NULL OR ${alias}.publisher_id = ANY($4))`;

function eventLayout(
  columns: ParquetColumn[],
  parts: (scope: ReportScope) => BatchParts & { time: string },
  times?: (scope: ReportScope) => string,
): EventLayout {
  return {
    columns,
    parts: (scope) => {
      const { time: _time, ...p } = parts(scope);
      return p;
    },
    times:
      times ??
      ((scope) => {
        const p = parts(scope);
        return `SELECT ${p.time} AS at FROM ${p.from} WHERE ${p.where}`;
      }),
  };
}

export const EVENT_LAYOUTS: Record<EventType, EventLayout> = {
  // Layout A: counted impressions, views and clicks by receipt time (duplicates and bots are not
  // delivered, as they are not billed or reported).
  ad_events: eventLayout(
    [
      text("event_id"),
      text("session_id"),
      text("user_id", true),
      text("ad_id"),
      text("campaign_id"),
      text("request_id"),
      text("ad_type"),
      text("placement_name"),
      text("context"),
      time("created_at"),
      text("site"),
    ],
    () => ({
      select: `e.event_id::text, e.session_id, e.user_id, e.ad_id, e.campaign_id, e.request_id, e.ad_type::text, e.placement_name, e.context, e.created_at, e.site`,
      from: "ad_events e",
      where: `e.created_at > $1 AND e.created_at <= $2 AND e.status = 'counted' AND ${scoped("e")}`,
      order: "e.created_at, e.event_id",
      id: "e.event_id::text",
      time: "e.created_at",
    }),
  ),
  // Layout B: a publisher's orders by receipt time. An advertiser receives the orders credited to
  // its ads, when they are credited: every line of an order is credited in one statement, so the
  // order falls in exactly one batch. An order its publisher's requirement left uncredited (an
  // unverified one) is no advertiser's: its items are attributed, and counted apart, but not sent.
  orders: eventLayout(
    [text("event_id"), text("session_id"), text("user_id"), text("order_id"), text("channel"), time("placed_at"), text("site")],
    (scope) => ({
      select: "c.event_id::text, c.session_id, c.user_id, c.order_id, c.channel, c.placed_at, c.site",
      from: "conversions c",
      where:
        scope.advertiserId === null
          ? "c.received_at > $1 AND c.received_at <= $2 AND $3::text IS NULL AND c.publisher_id = ANY($4)"
          : `c.event_id IN (SELECT a.conversion_id FROM attributions a WHERE a.created_at > $1 AND a.created_at <= $2 AND a.credited AND ${scoped("a")})`,
      order: "c.received_at, c.event_id",
      id: "c.event_id::text",
      time: "c.received_at",
    }),
    // An advertiser's orders fall in batches by the time they were credited (one time per order).
    (scope) =>
      scope.advertiserId === null
        ? "SELECT c.received_at AS at FROM conversions c WHERE c.received_at > $1 AND c.received_at <= $2 AND $3::text IS NULL AND c.publisher_id = ANY($4)"
        : `SELECT max(a.created_at) AS at FROM attributions a WHERE a.created_at > $1 AND a.created_at <= $2 AND a.credited AND ${scoped("a")} GROUP BY a.conversion_id`,
  ),
  // Layout C: credited order items (attributions) by the time they were credited; event_id and
  // event_created_at are the ad interaction that won the item. Items of uncredited orders are left out.
  order_items: eventLayout(
    [
      text("event_id"),
      text("session_id"),
      text("user_id"),
      text("order_id"),
      text("product_sku"),
      text("ad_id"),
      text("campaign_id"),
      text("request_id"),
      text("ad_size", true),
      text("ad_type"),
      text("placement_name"),
      text("context"),
      time("event_created_at"),
      double("price"),
      double("promotional_price"),
      double("quantity"),
      double("total_value"),
    ],
    () => ({
      select: `a.event_id::text, a.session_id, a.user_id, a.order_id, a.product_sku, a.ad_id, a.campaign_id, a.request_id, a.ad_size,
               a.ad_type::text, a.placement_name, a.context, a.event_created_at, a.price_micros::float8 / 1e6, a.promotional_price_micros::float8 / 1e6,
               a.quantity, a.total_value_micros::float8 / 1e6`,
      from: "attributions a",
      where: `a.created_at > $1 AND a.created_at <= $2 AND a.credited AND ${scoped("a")}`,
      order: "a.created_at, a.conversion_id, a.item_position",
      id: "a.conversion_id::text || '/' || a.item_position::text",
      time: "a.created_at",
    }),
  ),
};

export interface AggregateLayout {
  columns: string[];
  /** The report statement of one UTC day for the scope; its rows hold every column but `day`. */
  statement: (scope: ReportScope, day: string) => ReportStatement<Record<string, CsvValue>>;
}

function dayQuery<OrderBy extends string>(day: string, orderBy: OrderBy): ReportQuery<OrderBy> {
  return { startDate: day, endDate: day, page: 1, perPage: 1, orderBy, order: "asc", download: true, ids: {} };
}

const asRecords = <Row>(statement: ReportStatement<Row>) => statement as unknown as ReportStatement<Record<string, CsvValue>>;

export const AGGREGATE_LAYOUTS: Record<AggregateType, AggregateLayout> = {
  advertisers: {
    columns: ["advertiser", "advertiser_id", "seller_id", "wallet_balance", "daily_budget", "currency"],
    statement: (scope, day) => asRecords(store().reports.advertisers(scope, dayQuery(day, "advertiser"))),
  },
  campaigns: {
    columns: [
      "day",
      "name",
      "campaign_id",
      "campaign_type",
      "campaign_status",
      "impressions_total",
      "clicks_total",
      "ctr",
      "ad_revenue",
      "conversions_total",
      "conversion_rate",
      "sales_revenue",
      "start_date",
      "end_date",
      "advertiser_id",
    ],
    statement: (scope, day) => asRecords(store().reports.campaigns(scope, dayQuery(day, "name"))),
  },
  ads: {
    columns: [
      "day",
      "ad_id",
      "campaign_id",
      "ad_status",
      "ad_media_url",
      "cpm",
      "cpc",
      "impressions_total",
      "clicks_total",
      "ctr",
      "ad_revenue",
      "conversions_total",
      "conversion_rate",
      "sales_revenue",
      "product_sku",
    ],
    statement: (scope, day) => asRecords(store().reports.adResults(scope, dayQuery(day, "name"))),
  },
};
