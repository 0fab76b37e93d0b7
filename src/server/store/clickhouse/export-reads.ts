// The export's reads with ClickHouse as the store: counted ad events and credited order items
// from ClickHouse's settled rows; orders from Postgres, which keeps them whatever the store, an
// advertiser's being the ones ClickHouse says were credited to it in the range; the daily
// aggregates through the store's report reads. Rows, order, columns, values and batch ends are
// Postgres's (store/postgres/export-batches.sql.ts), so a destination's files do not change with
// the store (export-reads.ch.int.test.ts compares every read).

import { isEventType } from "@/server/core/export-types";
import { bulkPool } from "@/server/db/pg-pool";
import { aggregateBatch } from "@/server/store/export-aggregates";
import { aggregateDate, cappedEndAt, type ExportBatch, type ExportReads, type RowFilter } from "@/server/store/export-rows";
import { EVENT_PARTS, exportBatch, FETCH_ROWS, postgresExportReads } from "@/server/store/postgres/export-batches.sql";
import type { ReportScope } from "@/server/store/report-query";
import type { ReportReads } from "@/server/store/store";
import { selectRows } from "./client";
import { heldOrderIds, ordersOfIds } from "./export-orders.sql";
import {
  type ChLayout,
  type ChQuery,
  countQuery,
  creditedOrders,
  EVENT_LAYOUTS,
  idAtQuery,
  idBeforeQuery,
  rowsQuery,
  timePastCapQuery,
} from "./export-reads.ch.sql";
import { streamPages } from "./stream-rows";

type Range = { start: Date; end: Date };

/** A ClickHouse row as the files take it: its times as Dates, as Postgres's driver gives them. */
function withDates(row: unknown[], times: readonly number[]): unknown[] {
  for (const at of times) row[at] = new Date(row[at] as string);
  return row;
}

async function* pagesOf(query: ChQuery, times: readonly number[]): AsyncGenerator<unknown[][]> {
  for await (const page of streamPages(query.query, query.params, FETCH_ROWS)) yield page.map((row) => withDates(row, times));
}

async function firstId(query: ChQuery): Promise<string | null> {
  return (await selectRows<{ id: string }>(query.query, query.params))[0]?.id ?? null;
}

/** Layouts A and C: every read answered by ClickHouse. */
function eventBatch(type: "ad_events" | "order_items", layout: ChLayout): ExportBatch {
  return {
    type,
    cells: (raw) => raw as unknown[],
    count: async (filter = {}) => {
      const query = countQuery(layout, filter);
      return Number((await selectRows<{ n: string }>(query.query, query.params))[0]!.n);
    },
    read: (filter = {}, options = {}) => pagesOf(rowsQuery(layout, filter, options.ordered === false ? null : layout.order), layout.times),
    idAt: (filter, offset) => firstId(idAtQuery(layout, filter, offset)),
    idBefore: (filter, id) => firstId(idBeforeQuery(layout, filter, id)),
  };
}

interface IdPage {
  ids: string[];
  /** The span of the orders' receipt times, which bounds the Postgres read to their partitions. */
  from: Date;
  to: Date;
}

/**
 * Layout B for an advertiser: ClickHouse names the orders credited to it in the range (a page of
 * ids at a time, in the order asked), Postgres reads those it holds. Paged in the file's order
 * (receipt time, then id), pages read one after another come out in the file's order too.
 */
function creditedOrdersBatch(scope: ReportScope, range: Range): ExportBatch {
  const layout = creditedOrders(scope, range);
  async function* idPages(filter: RowFilter, order: string, below?: string): AsyncGenerator<IdPage> {
    for await (const page of pagesOf(rowsQuery(layout, filter, order, below), layout.times)) {
      const times = page.map((row) => (row[1] as Date).getTime());
      yield { ids: page.map((row) => row[0] as string), from: new Date(Math.min(...times)), to: new Date(Math.max(...times)) };
    }
  }
  const held = async ({ ids, from, to }: IdPage) => new Set((await bulkPool().query<{ id: string }>(heldOrderIds(ids, from, to))).rows.map((row) => row.id));
  /** The first id held in Postgres after skipping `skip` of them, in `order`. */
  async function nth(filter: RowFilter, order: string, skip: number, below?: string): Promise<string | null> {
    let left = skip;
    for await (const page of idPages(filter, order, below)) {
      const inPostgres = await held(page);
      for (const id of page.ids) {
        if (!inPostgres.has(id)) continue;
        if (left === 0) return id;
        left -= 1;
      }
    }
    return null;
  }
  return {
    type: "orders",
    cells: (raw) => raw as unknown[],
    count: async (filter = {}) => {
      let rows = 0;
      for await (const page of idPages(filter, layout.order)) rows += (await held(page)).size;
      return rows;
    },
    read: async function* (filter = {}) {
      for await (const { ids, from, to } of idPages(filter, layout.order)) {
        const query = ordersOfIds(ids, from, to);
        const { rows } = await bulkPool().query<unknown[]>({ text: query.text, values: query.values, rowMode: "array" });
        if (rows.length > 0) yield rows;
      }
    },
    idAt: (filter, offset) => nth(filter, "id", offset),
    idBefore: (filter, id) => nth(filter, "id DESC", 0, id),
  };
}

/** The export's reads of the ClickHouse store; the daily aggregates through `reports`, the store's report reads. */
export function clickhouseExportReads(reports: ReportReads): ExportReads {
  return {
    batch: (type, scope, range, layout) => {
      if (!isEventType(type)) return aggregateBatch(reports, type, scope, aggregateDate(range), layout, range.zone);
      const span = { start: range.rangeStart, end: range.rangeEnd };
      if (type !== "orders") return eventBatch(type, EVENT_LAYOUTS[type](scope, span));
      // A publisher's orders are its conversions by receipt time: Postgres alone answers.
      return scope.advertiserId === null ? exportBatch(EVENT_PARTS.orders(scope, span), type) : creditedOrdersBatch(scope, span);
    },
    cappedEnd: async (type, scope, range, maxRows) => {
      if (type === "orders" && scope.advertiserId === null) return postgresExportReads.cappedEnd(type, scope, range, maxRows);
      const query = timePastCapQuery(type === "orders" ? "credited_orders" : type, scope, range, maxRows);
      const [row] = await selectRows<{ at: string }>(query.query, query.params);
      return cappedEndAt(row ? new Date(row.at) : null, range);
    },
  };
}
