// The daily aggregate files (advertisers, campaigns, ads) of a store whose report reads are not
// SQL the export can wrap: the day's report rows read through the store's own report reads, so a
// file holds exactly what the reports show for that day, in the report's order. A report row's id
// is its advertiser, campaign or ad id, as with Postgres (store/postgres/export-batches.sql.ts);
// the batch's filters are applied to the rows as they stream by, ids compared byte by byte (as
// COLLATE "C"). A day's report is one row per advertiser, campaign or ad in scope, so the id lists
// idAt sorts stay small.
import type { AggregateLayout, AggregateType } from "@/server/core/export-types";
import type { CsvValue } from "@/server/formats/csv";
import { aggregateColumns, dayQuery, type ExportBatch, type RowFilter } from "./export-rows";
import type { ReportScope } from "./report-query";
import type { ReportRows } from "./report-rows";
import type { ReportReads } from "./store";

const BATCH_ROWS = 5_000;

interface DayRows {
  rows(): ReportRows<object>;
  id(row: object): string;
}

const field = (name: string) => (row: object) => String((row as Record<string, unknown>)[name]);

const SOURCES: Record<AggregateType, (reports: ReportReads, scope: ReportScope, day: string, zone: string | undefined) => DayRows> = {
  advertisers: (reports, scope, day, zone) => ({ rows: () => reports.advertisers(scope, dayQuery(day, "advertiser", zone)), id: field("advertiser_id") }),
  campaigns: (reports, scope, day, zone) => ({ rows: () => reports.campaigns(scope, dayQuery(day, "name", zone)), id: field("campaign_id") }),
  ads: (reports, scope, day, zone) => ({ rows: () => reports.adResults(scope, dayQuery(day, "name", zone)), id: field("ad_id") }),
};

const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

function passes(id: string, filter: RowFilter, excluded: ReadonlySet<string>): boolean {
  if (excluded.has(id)) return false;
  if (filter.after != null && byteOrder(id, filter.after) <= 0) return false;
  if (filter.upTo != null && byteOrder(id, filter.upTo) > 0) return false;
  return true;
}

/** One local day's aggregate batch of `type` (`day` in `zone`, UTC when absent), read through `reports`. */
export function aggregateBatch(
  reports: ReportReads,
  type: AggregateType,
  scope: ReportScope,
  day: string,
  layout?: AggregateLayout,
  zone?: string,
): ExportBatch {
  const source = SOURCES[type](reports, scope, day, zone);
  const columns = aggregateColumns(type, layout);
  async function* filtered(filter: RowFilter): AsyncGenerator<object[]> {
    const excluded = new Set(filter.exclude ?? []);
    const cursor = await source.rows().open({ batch: BATCH_ROWS });
    try {
      for await (const batch of cursor.batches) {
        const kept = batch.filter((row) => passes(source.id(row), filter, excluded));
        if (kept.length > 0) yield kept;
      }
    } finally {
      await cursor.close();
    }
  }
  // The day's ids, read once per batch: splitting a batch into files asks for counts and ids
  // many times (idAt, idBefore), and each would otherwise read the day's report again. The
  // rows themselves are read as they stream, never held.
  let dayIds: Promise<string[]> | null = null;
  const ids = async (filter: RowFilter) => {
    dayIds ??= (async () => {
      const found: string[] = [];
      for await (const batch of filtered({})) found.push(...batch.map(source.id));
      return found.sort(byteOrder);
    })().catch((error: unknown) => {
      dayIds = null; // a failed read is tried afresh by the next call
      throw error;
    });
    const excluded = new Set(filter.exclude ?? []);
    return (await dayIds).filter((id) => passes(id, filter, excluded));
  };
  return {
    type,
    columns,
    cells: (raw) => {
      const row = raw as Record<string, CsvValue>;
      return columns.map((name): CsvValue => (name === "day" ? day : (row[name] ?? null)));
    },
    count: async (filter = {}) => (await ids(filter)).length,
    read: (filter = {}) => filtered(filter),
    idAt: async (filter, offset) => (await ids(filter))[offset] ?? null,
    idBefore: async (filter, id) => (await ids(filter)).filter((found) => byteOrder(found, id) < 0).at(-1) ?? null,
  };
}
