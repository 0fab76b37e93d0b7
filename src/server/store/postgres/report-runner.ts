// Running a report statement: one page of it (JSON answers, the dashboard) or all of its rows
// through a cursor (downloads, the export's daily aggregates). The statements themselves are
// built in the *.sql.ts files beside this one.
import type pg from "pg";
import type { Sql } from "sql-template-tag";
import { cursorBatches } from "@/server/db/cursor";
import { inTransaction } from "@/server/db/transaction";

export interface ReportPage<Row> {
  data: Row[];
  page: number;
  per_page: number;
  total: number;
}

/**
 * A report query whose rows carry `count(*) OVER () AS total` and whose last two parameters are
 * LIMIT and OFFSET (a null limit is LIMIT ALL), with the mapping of a database row to a report
 * row. `sql` numbers its parameters $1 to $n, n being the length of `values`: the export reads a
 * statement as a subquery and numbers its own parameters after them.
 */
export interface ReportStatement<Row> {
  sql: string;
  values: (limit: number | null, offset: number) => unknown[];
  /** The report row of a database row (whose shape the SQL decides, so each statement states it). */
  row(raw: object): Row;
}

// Stand-ins for the page's LIMIT and OFFSET inside a tagged query: the text is built once, and
// each run of the statement puts its own page in their places.
export const PAGE_LIMIT: unique symbol = Symbol("page limit");
export const PAGE_OFFSET: unique symbol = Symbol("page offset");

/** A report statement from a tagged query that may hold PAGE_LIMIT and PAGE_OFFSET. */
export function reportStatement<Raw extends object, Row>(query: Sql, row: (raw: Raw) => Row): ReportStatement<Row> {
  return {
    sql: query.text,
    values: (limit, offset) => query.values.map((value) => (value === PAGE_LIMIT ? limit : value === PAGE_OFFSET ? offset : value)),
    row: row as (raw: object) => Row,
  };
}

// Report queries aggregate tens of thousands of rollup rows and sort the result; the default
// 4 MB of work memory sends those sorts and hashes to disk. Each report transaction gets more.
export const REPORT_WORK_MEM = "32MB";

async function inReportTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(work, { begin: `BEGIN READ ONLY; SET LOCAL work_mem = '${REPORT_WORK_MEM}'` });
}

/** One page of a report. A page past the end has no row to carry the count, so the first row is asked for instead. */
export function reportPage<Row>(statement: ReportStatement<Row>, page: { page: number; perPage: number }): Promise<ReportPage<Row>> {
  return inReportTransaction(async (client) => {
    const run = (limit: number, offset: number) => client.query<Record<string, unknown> & { total: number }>(statement.sql, statement.values(limit, offset));
    const { rows } = await run(page.perPage, (page.page - 1) * page.perPage);
    const total = rows[0]?.total ?? (page.page > 1 ? ((await run(1, 0)).rows[0]?.total ?? 0) : 0);
    return { data: rows.map((raw) => statement.row(raw)), page: page.page, per_page: page.perPage, total };
  });
}

/**
 * Every row of a report, for a download: the query runs once, through a cursor read `batch` rows
 * at a time, so neither the server nor the database holds more than a batch for the client.
 * 200 rows: the 135,000-row benchmark download took as long as with 1,000, and its rows and sheet
 * XML died young instead of piling up in the old generation, a lower peak than with 1,000
 * (docs/decisions/0030-report-reads-and-downloads.md; bench/results.md).
 */
export async function* allReportRows<Row>(statement: ReportStatement<Row>, batch = 200): AsyncIterable<Row[]> {
  for await (const rows of cursorBatches<object>(statement.sql, statement.values(null, 0), { batch, settings: [`work_mem = '${REPORT_WORK_MEM}'`] })) {
    yield rows.map((raw) => statement.row(raw));
  }
}
