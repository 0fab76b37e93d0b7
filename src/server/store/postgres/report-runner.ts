// Running a report statement: one page of it (JSON answers, the dashboard) or all of its rows
// through a cursor (downloads, the export's daily aggregates), as the seam's ReportRows. The
// statements themselves are built in the *.sql.ts files beside this one.
import type pg from "pg";
import { Sql } from "sql-template-tag";
import { openCursor } from "@/server/db/cursor";
import { inTransaction } from "@/server/db/transaction";
import { beginReadOnly } from "@/server/db/transaction.sql";
import type { ReadClaim, ReportPage, ReportRows, RowCursor } from "@/server/store/report-rows";

/**
 * A report query whose rows carry `count(*) OVER () AS total` and whose page is PAGE_LIMIT and
 * PAGE_OFFSET (a null limit is LIMIT ALL), with the mapping of a database row to a report row.
 * The export reads `sql` as a subquery (export-batches.sql.ts).
 */
export interface ReportStatement<Row> extends ReportRows<Row> {
  sql(limit: number | null, offset: number): Sql;
  /** The report row of a database row (whose shape the SQL decides, so each statement states it). */
  row(raw: object): Row;
}

// Stand-ins for the page's LIMIT and OFFSET inside a tagged query: the text is built once, and
// each run of the statement puts its own page in their places.
export const PAGE_LIMIT: unique symbol = Symbol("page limit");
export const PAGE_OFFSET: unique symbol = Symbol("page offset");

/** A report statement from a tagged query that may hold PAGE_LIMIT and PAGE_OFFSET. */
export function reportStatement<Raw extends object, Row>(query: Sql, row: (raw: Raw) => Row): ReportStatement<Row> {
  const statement: ReportStatement<Row> = {
    sql: (limit, offset) => paged(query, limit, offset),
    row: row as (raw: object) => Row,
    page: (page) => reportPage(statement, page),
    open: ({ batch, claim }) => openReportCursor(statement, batch, claim),
  };
  return statement;
}

const paged = (query: Sql, limit: number | null, offset: number): Sql => {
  const values = query.values.map((value) => (value === PAGE_LIMIT ? limit : value === PAGE_OFFSET ? offset : value));
  return new Sql(query.strings, values);
};

// Report queries aggregate tens of thousands of rollup rows and sort the result; the default
// 4 MB of work memory sends those sorts and hashes to disk. Each report transaction gets more.
const REPORT_WORK_MEM = "32MB";
const REPORT_SETTINGS = [`work_mem = '${REPORT_WORK_MEM}'`];

async function inReportTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(work, { begin: beginReadOnly(REPORT_SETTINGS) });
}

/** One page of a report. A page past the end has no row to carry the count, so the first row is asked for instead. */
function reportPage<Row>(statement: ReportStatement<Row>, page: { page: number; perPage: number }): Promise<ReportPage<Row>> {
  return inReportTransaction(async (client) => {
    const run = (limit: number, offset: number) => client.query<Record<string, unknown> & { total: number }>(statement.sql(limit, offset));
    const { rows } = await run(page.perPage, (page.page - 1) * page.perPage);
    const total = rows[0]?.total ?? (page.page > 1 ? ((await run(1, 0)).rows[0]?.total ?? 0) : 0);
    return { data: rows.map((raw) => statement.row(raw)), page: page.page, per_page: page.perPage, total };
  });
}

/**
 * Every row of a report, for a download or an export: the query runs once, through a cursor read
 * `batch` rows at a time, so neither the server nor the database holds more than a batch for the
 * reader (downloads read 200 rows a batch: docs/decisions/0030-report-reads-and-downloads.md;
 * bench/results.md).
 */
async function openReportCursor<Row>(statement: ReportStatement<Row>, batch: number, claim?: ReadClaim): Promise<RowCursor<Row>> {
  return openStatementCursor(async () => statement, batch, claim);
}

/**
 * openReportCursor of a statement that is made only once the read's claim is granted: a store
 * whose figures come from elsewhere (ClickHouse) reads them after a download has its slots, so a
 * download refused for want of one costs that store nothing.
 */
export async function openStatementCursor<Row>(statement: () => Promise<ReportStatement<Row>>, batch: number, claim?: ReadClaim): Promise<RowCursor<Row>> {
  let made: ReportStatement<Row> | undefined;
  const query = async () => {
    made = await statement();
    return made.sql(null, 0);
  };
  const cursor = await openCursor<object>(query, { batch, settings: REPORT_SETTINGS, ...(claim ? { claim } : {}) });
  async function* rows(): AsyncGenerator<Row[]> {
    for await (const raw of cursor.batches) yield raw.map((r) => made!.row(r));
  }
  return { batches: rows(), close: () => cursor.close(), ended: cursor.ended };
}
