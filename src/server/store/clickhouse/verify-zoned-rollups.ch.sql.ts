// Hand-written SQL: the check and rebuild of ClickHouse's rollups per kept zone (zoned_report_rollups,
// zoned_order_rollups, zoned_order_keys), from the raw ad_events and attributions, per zone from the zone's since.
// The recount is the views' own query (zonedRollupQuery, windowed), so check and views cannot
// differ in what they count; the check sums each side per key and measure (unpivoted, so a key
// either side lacks reads 0 there), as the UTC check does (verify-rollups.ch.sql.ts). Days are
// local dates in the zone; the raw rows of a zone's first local day may begin before a held UTC
// day, so the caller passes the first local day whose raw rows are all held, and the moment the
// recount starts from (the zone's since, or the held rows' first moment).
import { UTC } from "@/server/core/time-zones";
import type { RollupDifference } from "@/server/store/rollup-checks";
import { runCommand, selectRows } from "./client";
import { currentSchema } from "./migrate.sql";
import { keyCount, ORDER_FIGURES, type OrderFigure } from "./order-keys.sql";
import { asDateTime, zonesTable } from "./report-zones.sql";
import { insertColumns, keptZones, NOT_DAY_KEY, ZONED_TABLES, ZONED_VIEWS, type ZonedTable, type ZonedView, zonedRollupQuery } from "./zoned-rollups.sql";

const KEY = NOT_DAY_KEY.join(", ");
const LOCAL_DAYS = "day BETWEEN {firstDay:Date} AND {lastDay:Date}";
/** Past every local day of the range in any zone (offsets are within 14 hours of UTC). */
const RECOUNT_TO = "toDateTime64({lastDay:Date} + 2, 3, 'UTC')";

// A view's measures: the columns it writes, or for an order keys view the figures its bits count.
const measuresOf = (view: ZonedView): string[] => {
  if (view.target !== "zoned_order_keys") return insertColumns(view).slice(2 + NOT_DAY_KEY.length);
  return ORDER_FIGURES.filter((figure) => (figure === "converted_clicks") === (view.id === "event_id"));
};
/** A measure per key of the rows `r`: summed, its states merged, or its order keys counted. */
function summed(table: ZonedTable, measure: string): string {
  if (table === "zoned_order_keys") return keyCount(measure as OrderFigure, "r");
  return `${table === "zoned_order_rollups" ? "uniqExactMerge" : "sum"}(r.${measure})`;
}

/** Rows (day, key, side, measure, value) of `measures` summed per key from `relation`. */
const unpivot = (table: ZonedTable, relation: string, measures: readonly string[], side: "stored" | "recounted") =>
  `SELECT toString(day) AS day_text, ${KEY}, '${side}' AS side, m.1 AS measure, m.2 AS value
     FROM (SELECT r.day AS day, ${NOT_DAY_KEY.map((column) => `r.${column} AS ${column}`).join(", ")},
                  ${measures.map((m) => `toInt128(${summed(table, m)}) AS m_${m}`).join(", ")}
             FROM ${relation} AS r WHERE r.${LOCAL_DAYS} GROUP BY day, ${KEY})
    ARRAY JOIN [${measures.map((m) => `('${m}', m_${m})`).join(", ")}] AS m`;

const recountOf = (view: ZonedView) =>
  `(${zonedRollupQuery(view, view.source, keptZones(zonesTable()), true).replaceAll("{windowTo:DateTime64(3, 'UTC')}", RECOUNT_TO)})`;

function verifyStatement(table: ZonedTable): string {
  const views = ZONED_VIEWS.filter((view) => view.target === table);
  const stored = unpivot(table, `(SELECT * FROM ${table} WHERE zone = {zone:String})`, [...new Set(views.flatMap(measuresOf))], "stored");
  const recounted = views.map((view) => unpivot(table, recountOf(view), measuresOf(view), "recounted"));
  return `SELECT '${table}' AS "table", day_text AS day, ${KEY}, measure,
                 toString(sumIf(value, side = 'stored')) AS stored, toString(sumIf(value, side = 'recounted')) AS recounted
            FROM (${[stored, ...recounted].join("\n UNION ALL \n")})
           GROUP BY day_text, ${KEY}, measure
          HAVING stored != recounted
           ORDER BY day_text, ${KEY}, measure`;
}

/** Which of a zone's rows a check or rebuild covers: its local days, and the first moment recounted. */
export interface ZoneDays {
  zone: string;
  firstDay: string;
  lastDay: string;
  /** The zone's since, or later where the raw rows before it are gone. */
  from: Date;
}

const paramsOf = (days: ZoneDays) => ({ zone: days.zone, firstDay: days.firstDay, lastDay: days.lastDay, windowFrom: asDateTime(days.from.getTime()) });

/** Every figure of one zone's rows over its local days that differs from the recount (`table` names the zoned table). */
export async function verifyZone(days: ZoneDays): Promise<(RollupDifference & { zone: string })[]> {
  if (days.zone === UTC || days.firstDay > days.lastDay) return [];
  const found: (RollupDifference & { zone: string })[] = [];
  for (const table of ZONED_TABLES) {
    for (const row of await selectRows<RollupDifference>(verifyStatement(table), paramsOf(days))) found.push({ ...row, zone: days.zone });
  }
  return found;
}

/**
 * Rewrites one zone's rows of the local days from the raw rows: deleted (a mutation, waited for),
 * then the views' recount inserted. Only with no writer adding rows (the caller holds the
 * rollups alone); a read meanwhile may find the days empty. Returns the report rows (keys) written.
 */
export async function rebuildZone(days: ZoneDays): Promise<number> {
  if (days.zone === UTC || days.firstDay > days.lastDay) return 0;
  const schema = currentSchema();
  const params = paramsOf(days);
  for (const table of ZONED_TABLES) {
    await runCommand(
      `ALTER TABLE ${schema.local(table)}${schema.onCluster} DELETE WHERE zone = {zone:String} AND ${LOCAL_DAYS} SETTINGS mutations_sync = 2`,
      params,
    );
  }
  for (const view of ZONED_VIEWS) {
    await runCommand(
      `INSERT INTO ${view.target} (${insertColumns(view).join(", ")})
       SELECT * FROM ${recountOf(view)} WHERE ${LOCAL_DAYS}
       SETTINGS insert_deduplicate = 0, distributed_foreground_insert = 1`,
      params,
    );
  }
  const [row] = await selectRows<{ n: string }>(
    `SELECT count() AS n FROM (SELECT 1 FROM zoned_report_rollups WHERE zone = {zone:String} AND ${LOCAL_DAYS} GROUP BY day, ${KEY})`,
    params,
  );
  return Number(row?.n ?? 0);
}
