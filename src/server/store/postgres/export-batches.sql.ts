// Hand-written SQL: the rows of one export batch (store/export-rows.ts says what each file holds)
// and the reads the export makes of them: counts, the rows through a cursor, row ids for splitting
// a batch, and where a capped batch ends. Batches are ranges of receipt time read in a fixed order,
// so a retried batch writes the same rows into the same files. Every read is a batch-sized scan,
// so all of them go to the bulk pool (pg-pool.ts), never to the connections requests wait for.
import sql, { empty, join, raw, type Sql } from "sql-template-tag";
import { type AggregateLayout, type AggregateType, type EventType, isEventType } from "@/server/core/export-types";
import { cursorBatches } from "@/server/db/cursor";
import { bulkPool } from "@/server/db/pg-pool";
import type { CsvValue } from "@/server/formats/csv";
import type { ExportBatch, ExportReads, RowFilter } from "@/server/store/export-rows";
import { aggregateColumns, aggregateDate, cappedEndAt, dayQuery } from "@/server/store/export-rows";
import type { ReportScope } from "@/server/store/report-query";
import { adResultsStatement } from "./ad-results.sql";
import { advertiserReportStatement } from "./advertiser-report.sql";
import { campaignListingStatement } from "./campaign-listing.sql";
import type { ReportStatement } from "./report-runner";

export const FETCH_ROWS = 5_000;

/** A batch's rows: `SELECT select FROM from WHERE where ORDER BY order`, each row identified by `id`. */
export interface BatchParts {
  select: Sql;
  from: Sql;
  where: Sql;
  /** The file's row order; null: the order `from` already has (a report statement's). */
  order: Sql | null;
  /** A row's identity, as text: unique in the batch, from stored columns only (so reading it never fails on a row's data). */
  id: Sql;
  /** Rows as arrays in the select's column order (no object per row). */
  rowMode?: "array";
  cells: (raw: unknown) => unknown[];
  /** An aggregate's CSV columns (ExportBatch.columns). */
  columns?: readonly string[];
}

type Range = { start: Date; end: Date };

// The scope of the destination's account: an advertiser its own campaigns' rows; a publisher its
// inventory's; a network its own and its sub-publishers' (docs/interface-decisions.md §1). The
// alias is one of the fixed table aliases below.
const scoped = (alias: string, scope: ReportScope): Sql =>
  sql`(${scope.advertiserId}::text IS NULL OR ${raw(alias)}.advertiser_id = ${scope.advertiserId}) AND (${scope.publisherIds}::text[] IS NULL OR ${raw(alias)}.publisher_id = ANY(${scope.publisherIds}))`;

const asCells = (row: unknown) => row as unknown[];

/** Layout A: counted impressions, views and clicks by receipt time (duplicates and bots are not delivered, as they are not billed or reported). */
const adEventsWhere = (scope: ReportScope, range: Range) =>
  sql`e.created_at > ${range.start} AND e.created_at <= ${range.end} AND e.status = 'counted' AND ${scoped("e", scope)}`;

// Layout B: a publisher's orders by receipt time. An advertiser receives the orders credited to
// its ads, when they are credited: every line of an order is credited in one statement, so the
// order falls in exactly one batch. An order its publisher's requirement left uncredited (an
// unverified one) is no advertiser's: its items are attributed, and counted apart, but not sent. Nor
// are halo lines (another SKU of the advertiser): the layout holds the campaigns' own SKUs.
const creditedIn = (scope: ReportScope, range: Range) =>
  sql`a.created_at > ${range.start} AND a.created_at <= ${range.end} AND a.credited AND a.match = 'sku' AND ${scoped("a", scope)}`;
const publisherOrdersWhere = (scope: ReportScope, range: Range) =>
  sql`c.received_at > ${range.start} AND c.received_at <= ${range.end} AND ${scope.advertiserId}::text IS NULL AND c.publisher_id = ANY(${scope.publisherIds})`;

/** Layout B's columns, of `conversions c`. */
export const ORDER_COLUMNS = sql`c.event_id::text, c.session_id, c.user_id, c.order_id, c.channel, c.placed_at, c.site`;

export const EVENT_PARTS: Record<EventType, (scope: ReportScope, range: Range) => BatchParts> = {
  ad_events: (scope, range) => ({
    select: sql`e.event_id::text, e.session_id, e.user_id, e.ad_id, e.campaign_id, e.request_id, e.ad_type::text, e.placement_name, e.context, e.created_at, e.site`,
    from: sql`ad_events e`,
    where: adEventsWhere(scope, range),
    order: sql`e.created_at, e.event_id`,
    id: sql`e.event_id::text`,
    rowMode: "array",
    cells: asCells,
  }),
  orders: (scope, range) => ({
    select: ORDER_COLUMNS,
    from: sql`conversions c`,
    where:
      scope.advertiserId === null
        ? publisherOrdersWhere(scope, range)
        : sql`c.event_id IN (SELECT a.conversion_id FROM attributions a WHERE ${creditedIn(scope, range)})`,
    order: sql`c.received_at, c.event_id`,
    id: sql`c.event_id::text`,
    rowMode: "array",
    cells: asCells,
  }),
  // Layout C: credited order items (attributions) by the time they were credited; event_id and
  // event_created_at are the ad interaction that won the item. Items of uncredited orders are left out.
  order_items: (scope, range) => ({
    select: sql`a.event_id::text, a.session_id, a.user_id, a.order_id, a.product_sku, a.ad_id, a.campaign_id, a.request_id, a.ad_size,
               a.ad_type::text, a.placement_name, a.context, a.event_created_at, a.price_micros::float8 / 1e6, a.promotional_price_micros::float8 / 1e6,
               a.quantity, a.total_value_micros::float8 / 1e6`,
    from: sql`attributions a`,
    where: creditedIn(scope, range),
    order: sql`a.created_at, a.conversion_id, a.item_position`,
    id: sql`a.conversion_id::text || '/' || a.item_position::text`,
    rowMode: "array",
    cells: asCells,
  }),
};

/** One row per exported row with the time that places it in a batch, as `at`: where a capped batch ends. */
export const EVENT_TIMES: Record<EventType, (scope: ReportScope, range: Range) => Sql> = {
  ad_events: (scope, range) => sql`SELECT e.created_at AS at FROM ad_events e WHERE ${adEventsWhere(scope, range)}`,
  // An advertiser's orders fall in batches by the time they were credited (one time per order).
  orders: (scope, range) =>
    scope.advertiserId === null
      ? sql`SELECT c.received_at AS at FROM conversions c WHERE ${publisherOrdersWhere(scope, range)}`
      : sql`SELECT max(a.created_at) AS at FROM attributions a WHERE ${creditedIn(scope, range)} GROUP BY a.conversion_id`,
  order_items: (scope, range) => sql`SELECT a.created_at AS at FROM attributions a WHERE ${creditedIn(scope, range)}`,
};

/** The report statement of one local day in `zone` for the scope; its rows hold every column but `day`. */
const AGGREGATE_STATEMENTS: Record<AggregateType, (scope: ReportScope, day: string, zone: string | undefined) => ReportStatement<object>> = {
  advertisers: (scope, day, zone) => advertiserReportStatement(scope, dayQuery(day, "advertiser", zone)),
  campaigns: (scope, day, zone) => campaignListingStatement(scope, dayQuery(day, "name", zone)),
  ads: (scope, day, zone) => adResultsStatement(scope, dayQuery(day, "name", zone)),
};

function aggregateParts(type: AggregateType, scope: ReportScope, day: string, zone: string | undefined, layout?: AggregateLayout): BatchParts {
  const statement = AGGREGATE_STATEMENTS[type](scope, day, zone);
  const columns = aggregateColumns(type, layout);
  return {
    columns,
    // The report statement as a subquery: a filter over it keeps the statement's own sort (a
    // subquery scan emits rows in the order its sorted input has), and `id` is each report row's.
    select: sql`r.*`,
    from: sql`(${statement.sql(null, 0)}) r`,
    where: sql`true`,
    order: null,
    id: sql`r.id`,
    cells: (raw) => {
      const row = statement.row(raw as object) as Record<string, CsvValue>;
      return columns.map((name): CsvValue => (name === "day" ? day : (row[name] ?? null)));
    },
  };
}

/** The batch's conditions with the filter's: only those in use, so a batch with nothing set aside reads with the layout's own SQL. */
function filtered(parts: BatchParts, filter: RowFilter): Sql {
  const id = sql`(${parts.id}) COLLATE "C"`;
  const conditions = [sql`(${parts.where})`];
  if (filter.exclude && filter.exclude.length > 0) conditions.push(sql`NOT ((${parts.id}) = ANY(${filter.exclude}::text[]))`);
  if (filter.after != null) conditions.push(sql`${id} > ${filter.after}`);
  if (filter.upTo != null) conditions.push(sql`${id} <= ${filter.upTo}`);
  return join(conditions, " AND ");
}

export function exportBatch(parts: BatchParts, type: ExportBatch["type"]): ExportBatch {
  return {
    type,
    columns: parts.columns,
    cells: parts.cells,
    count: async (filter = {}) => {
      const { rows } = await bulkPool().query<{ rows: number }>(sql`SELECT count(*)::int AS rows FROM ${parts.from} WHERE ${filtered(parts, filter)}`);
      return rows[0]!.rows;
    },
    read: (filter = {}, options = {}) => {
      const order = options.ordered === false || parts.order === null ? empty : sql` ORDER BY ${parts.order}`;
      const query = sql`SELECT ${parts.select} FROM ${parts.from} WHERE ${filtered(parts, filter)}${order}`;
      return cursorBatches<unknown>(query, { batch: FETCH_ROWS, ...(parts.rowMode ? { rowMode: parts.rowMode } : {}) });
    },
    idAt: async (filter, offset) => {
      const { rows } = await bulkPool().query<{ id: string }>(
        sql`SELECT (${parts.id}) AS id FROM ${parts.from} WHERE ${filtered(parts, filter)} ORDER BY (${parts.id}) COLLATE "C" OFFSET ${offset} LIMIT 1`,
      );
      return rows[0]?.id ?? null;
    },
    idBefore: async (filter, id) => {
      const { rows } = await bulkPool().query<{ id: string | null }>(
        sql`SELECT max((${parts.id}) COLLATE "C") AS id FROM ${parts.from} WHERE ${filtered(parts, filter)} AND (${parts.id}) COLLATE "C" < ${id}`,
      );
      return rows[0]?.id ?? null;
    },
  };
}

export const postgresExportReads: ExportReads = {
  batch: (type, scope, range, layout) =>
    exportBatch(
      isEventType(type)
        ? EVENT_PARTS[type](scope, { start: range.rangeStart, end: range.rangeEnd })
        : aggregateParts(type as AggregateType, scope, aggregateDate(range), range.zone, layout),
      type,
    ),
  cappedEnd: async (type, scope, range, maxRows) => {
    const { rows } = await bulkPool().query<{ at: Date }>(sql`SELECT at FROM (${EVENT_TIMES[type](scope, range)}) t ORDER BY at OFFSET ${maxRows} LIMIT 1`);
    return cappedEndAt(rows[0]?.at ?? null, range);
  },
};
