// The hours report (dayparting) with ClickHouse as the store: the 168 cells of one kept zone from
// its hourly rollups (hours-report.ch.sql.ts), answered as the Postgres store answers them
// (store/postgres/hours-report.sql.ts): the same rows, the same hours_since, the same refusal of
// a zone whose hours are not kept. One query gives the cells and the zone's start together.
import type { HoursReport } from "@/server/store/hours-report";
import { metricsOf, type TotalsRow } from "@/server/store/metrics";
import { hoursNotKept } from "@/server/store/postgres/hours-report.sql";
import type { ReportQuery, ReportScope } from "@/server/store/report-query";
import { selectRows } from "./client";
import { CELL_FIGURES, hoursStatement } from "./hours-report.ch.sql";
import { currentSchema } from "./migrate.sql";

type Cell = Record<string, string | number> & { weekday: number; hour: number; kept: string | number; hours_since: string };

/** The range's figures by local weekday and hour in `query.zone` (UTC when absent), in scope and filtered by the route's ids. */
export async function clickhouseHours(scope: ReportScope, query: ReportQuery<string>): Promise<HoursReport> {
  const zone = query.zone ?? "UTC";
  const { query: text, params } = hoursStatement(scope, query, zone, currentSchema().local("report_zones"));
  const cells = await selectRows<Cell>(text, params);
  const first = cells[0];
  if (!first || Number(first.kept) === 0) throw hoursNotKept(zone);
  return {
    zone,
    hoursSince: new Date(first.hours_since),
    rows: cells.map((cell) => {
      // 64- and 128-bit figures arrive as decimal text; Postgres's read hands them over as float8 too.
      const totals = Object.fromEntries(CELL_FIGURES.map((figure) => [figure, Number(cell[figure])])) as unknown as TotalsRow;
      return { weekday: Number(cell.weekday), hour: Number(cell.hour), ...metricsOf(totals) };
    }),
  };
}
