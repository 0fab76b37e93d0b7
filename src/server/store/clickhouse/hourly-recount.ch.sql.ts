// Hand-written SQL: the recount of ClickHouse's hourly rollups (migrations/0008-hourly-rollups.sql.ts)
// from the raw ad_events and attributions, per kept zone (UTC among them) over a window of UTC
// moments, with the views' own query (hourlySelect) and one kept zone starting at the window's
// start: what the views count, what the hours' backfill adds (zone-backfill.ch.sql.ts) and what the
// check and rebuild recount (rollup-checks.ts) cannot differ. The check sums each side per cell
// and measure (unpivoted, so a cell either side lacks reads 0 there), as the day rollups' does
// (verify-zoned-rollups.ch.sql.ts); the rebuild deletes a zone's cells of the local days (a
// mutation, waited for) and inserts the recount.
import type { RollupDifference } from "@/server/store/rollup-checks";
import { runCommand, selectRows } from "./client";
import { currentSchema } from "./migrate.sql";
import {
  CLICK_CREDIT,
  HOURLY_CONVERTED_CLICKS,
  HOURLY_CREDIT_FIGURES,
  HOURLY_ORDER_FIGURES,
  HOURLY_TRAFFIC_FIGURES,
  hourlySelect,
} from "./migrations/0008-hourly-rollups.sql";

export const HOURLY_TABLES = ["hourly_rollups", "hourly_order_rollups"] as const;
export type HourlyTable = (typeof HOURLY_TABLES)[number];

/** One of migration 8's four views, as data: its raw table, the time that places a row, what it writes. */
export interface HourlyView {
  name: string;
  target: HourlyTable;
  source: "ad_events" | "attributions";
  time: "created_at" | "placed_at" | "event_created_at";
  figures: readonly string[];
  where?: string;
}

export const HOURLY_VIEWS: readonly HourlyView[] = [
  { name: "ad_events_to_hourly_rollups", target: "hourly_rollups", source: "ad_events", time: "created_at", figures: HOURLY_TRAFFIC_FIGURES },
  { name: "attributions_to_hourly_rollups", target: "hourly_rollups", source: "attributions", time: "placed_at", figures: HOURLY_CREDIT_FIGURES },
  { name: "attributions_to_hourly_order_rollups", target: "hourly_order_rollups", source: "attributions", time: "placed_at", figures: HOURLY_ORDER_FIGURES },
  {
    name: "attributions_to_hourly_converted_clicks",
    target: "hourly_order_rollups",
    source: "attributions",
    time: "event_created_at",
    figures: HOURLY_CONVERTED_CLICKS,
    where: CLICK_CREDIT,
  },
];

const KEY = "publisher_id, advertiser_id, campaign_id";

/** The columns an insert of `view`'s recount names, in its order. */
export const hourlyInsertColumns = (view: HourlyView) => ["zone", "day", "hour", ...KEY.split(", "), ...measuresOf(view)];
const measuresOf = (view: HourlyView) => view.figures.map((figure) => figure.split(" AS ").at(-1)!);

/**
 * `view`'s hourly rows of the zone {zone} over the UTC moments [{windowFrom}, `to`) (parameters;
 * `to` a parameter or an expression), on their local day and hour in the zone.
 */
export function hourlyRecount(view: HourlyView, to = "{windowTo:DateTime64(3, 'UTC')}"): string {
  const until = `r.${view.time} < ${to}`;
  return hourlySelect({
    source: view.source,
    time: view.time,
    figures: view.figures,
    zones: "(SELECT {zone:String} AS zone, {windowFrom:DateTime64(3, 'UTC')} AS hours_since)",
    where: view.where ? `${view.where} AND ${until}` : until,
  });
}

/** ClickHouse's DateTime64 text of a moment (as report-zones.sql.ts writes it; not imported from there, which imports this file). */
const asDateTime = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace("Z", "");

const LOCAL_DAYS = "day BETWEEN {firstDay:Date} AND {lastDay:Date}";
/** Past every local day of the range in any zone (offsets are within 14 hours of UTC). */
const RECOUNT_TO = "toDateTime64({lastDay:Date} + 2, 3, 'UTC')";
const summed = (table: HourlyTable, column: string) => `${table === "hourly_order_rollups" ? "uniqExactMerge" : "sum"}(${column})`;

const unpivot = (table: HourlyTable, relation: string, measures: readonly string[], side: "stored" | "recounted") =>
  `SELECT toString(day) AS day_text, hour, ${KEY}, '${side}' AS side, m.1 AS measure, m.2 AS value
     FROM (SELECT day, hour, ${KEY}, ${measures.map((m) => `toInt128(${summed(table, m)}) AS m_${m}`).join(", ")}
             FROM ${relation} WHERE ${LOCAL_DAYS} GROUP BY day, hour, ${KEY})
    ARRAY JOIN [${measures.map((m) => `('${m}', m_${m})`).join(", ")}] AS m`;

function verifyStatement(table: HourlyTable): string {
  const views = HOURLY_VIEWS.filter((view) => view.target === table);
  const stored = unpivot(table, `(SELECT * FROM ${table} WHERE zone = {zone:String})`, [...new Set(views.flatMap(measuresOf))], "stored");
  const recounted = views.map((view) => unpivot(table, `(${hourlyRecount(view, RECOUNT_TO)})`, measuresOf(view), "recounted"));
  return `SELECT '${table}' AS "table", day_text AS day, hour, ${KEY}, measure,
                 toString(sumIf(value, side = 'stored')) AS stored, toString(sumIf(value, side = 'recounted')) AS recounted
            FROM (${[stored, ...recounted].join("\n UNION ALL \n")})
           GROUP BY day_text, hour, ${KEY}, measure
          HAVING stored != recounted
           ORDER BY day_text, hour, ${KEY}, measure`;
}

/** Which of a zone's hourly cells a check or rebuild covers: its local days, and the first moment recounted. */
export interface ZoneHours {
  zone: string;
  firstDay: string;
  lastDay: string;
  /** The zone's hours_since, or later where the raw rows before it are gone. */
  from: Date;
}

const paramsOf = (hours: ZoneHours) => ({ zone: hours.zone, firstDay: hours.firstDay, lastDay: hours.lastDay, windowFrom: asDateTime(hours.from.getTime()) });

export type HourlyDifference = RollupDifference & { zone: string; hour: number };

/** Every figure of one zone's hourly cells over its local days that differs from the recount. */
export async function verifyHourlyZone(hours: ZoneHours): Promise<HourlyDifference[]> {
  if (hours.firstDay > hours.lastDay) return [];
  const found: HourlyDifference[] = [];
  for (const table of HOURLY_TABLES) {
    const rows = await selectRows<Omit<RollupDifference, "site" | "ad_id" | "placement_name"> & { hour: number }>(verifyStatement(table), paramsOf(hours));
    for (const row of rows) found.push({ ...row, site: null, ad_id: null, placement_name: null, hour: Number(row.hour), zone: hours.zone });
  }
  return found;
}

/**
 * Rewrites one zone's hourly cells of the local days from the raw rows: deleted (a mutation,
 * waited for), then the views' recount inserted. Only while the caller holds the rollups alone
 * (asRollupRebuilder). Returns the cells (hourly_rollups' keys) the days hold.
 */
export async function rebuildHourlyZone(hours: ZoneHours): Promise<number> {
  if (hours.firstDay > hours.lastDay) return 0;
  const schema = currentSchema();
  const params = paramsOf(hours);
  for (const table of HOURLY_TABLES) {
    await runCommand(
      `ALTER TABLE ${schema.local(table)}${schema.onCluster} DELETE WHERE zone = {zone:String} AND ${LOCAL_DAYS} SETTINGS mutations_sync = 2`,
      params,
    );
  }
  for (const view of HOURLY_VIEWS) {
    await runCommand(
      `INSERT INTO ${view.target} (${hourlyInsertColumns(view).join(", ")})
       SELECT * FROM (${hourlyRecount(view, RECOUNT_TO)}) WHERE ${LOCAL_DAYS}
       SETTINGS insert_deduplicate = 0, distributed_foreground_insert = 1`,
      params,
    );
  }
  const [row] = await selectRows<{ n: string }>(
    `SELECT count() AS n FROM (SELECT 1 FROM hourly_rollups WHERE zone = {zone:String} AND ${LOCAL_DAYS} GROUP BY day, hour, ${KEY})`,
    params,
  );
  return Number(row?.n ?? 0);
}
