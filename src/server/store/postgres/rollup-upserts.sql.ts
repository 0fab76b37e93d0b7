// The report rows' share of the two writers' statements: the data-modifying CTEs that add a
// batch to every report table (REPORT_TABLES, then daily_publisher_orders), each in the
// transaction that stores the batch, so a report never counts a stored event or credited line
// twice, or misses one (docs/decisions/0006-report-rows-in-the-writers-transactions.md).
// Both writers upsert the tables in one order and rows in key order, so two batches cannot
// deadlock on shared rows. The text is built once per process from fixed lists: the writers'
// statements are benchmarked hot paths, and their own parameters stay positional around it.
import { FILTERED_STATUSES } from "@/server/core/event-status";
import { rowCounting } from "./ad-row-counts.sql";
import {
  CONVERTING_CLICK_LINES,
  CREDIT_MEASURES,
  CREDIT_SUMS,
  creditRows,
  localDay,
  localHour,
  ORDER_COUNTS,
  ORDER_MEASURES,
  REPORT_TABLES,
  type ReportTableSpec,
  reportKeyGrouping,
  ZONES_CTE,
  zonedSource,
} from "./rollup-tables.sql";

function trafficUpsert(spec: ReportTableSpec): string {
  const { table, keys } = spec;
  const { columns, groupBy } = reportKeyGrouping(spec, "created_at");
  const positions = keys.map((_, index) => index + 1).join(", ");
  const { returning, countsCte } = rowCounting(spec);
  const filtered = FILTERED_STATUSES.map(({ column }) => column);
  return `${table} AS (
             INSERT INTO ${table} AS r (${keys.join(", ")}, impressions, views, clicks, spend_micros, ${filtered.join(", ")})
             SELECT ${columns},
                    count(*) FILTER (WHERE status = 'counted' AND kind = 'impression'),
                    count(*) FILTER (WHERE status = 'counted' AND kind = 'view'),
                    count(*) FILTER (WHERE status = 'counted' AND kind = 'click'),
                    sum(spend_micros),
                    ${FILTERED_STATUSES.map(({ status }) => `count(*) FILTER (WHERE status = '${status}')`).join(",\n                    ")}
               FROM ${zonedSource(spec, "input", "created_at")}
              GROUP BY ${groupBy}
              ORDER BY ${positions}
             ON CONFLICT (${keys.join(", ")}) DO UPDATE
                SET impressions = r.impressions + EXCLUDED.impressions, views = r.views + EXCLUDED.views,
                    clicks = r.clicks + EXCLUDED.clicks, spend_micros = r.spend_micros + EXCLUDED.spend_micros,
                    ${filtered.map((column) => `${column} = r.${column} + EXCLUDED.${column}`).join(", ")}
             ${returning}
           )${countsCte}`;
}

/**
 * The beacon writer's CTEs, one per report table, over the batch's rows in a CTE named `input`
 * (ad_events' columns): counted impressions, views and clicks, spend, and each filtered status.
 */
export const trafficUpserts = (): string => [ZONES_CTE, ...REPORT_TABLES.map(trafficUpsert)].join(", ");

function creditUpsert(spec: ReportTableSpec): string {
  const { table, keys } = spec;
  const { columns, groupBy } = reportKeyGrouping(spec, "at");
  const positions = keys.map((_, index) => index + 1).join(", ");
  const { returning, countsCte } = rowCounting(spec);
  return `${table} AS (
  INSERT INTO ${table} AS r (${keys.join(", ")}, ${CREDIT_MEASURES.join(", ")})
  SELECT ${columns},
         ${CREDIT_SUMS}
    FROM ${zonedSource(spec, "credit_rows", "at")}
   GROUP BY ${groupBy}
   ORDER BY ${positions}
  ON CONFLICT (${keys.join(", ")}) DO UPDATE
     SET ${CREDIT_MEASURES.map((m) => `${m} = r.${m} + EXCLUDED.${m}`).join(", ")}
  ${returning}
)${countsCte}`;
}

/**
 * The attribution writer's CTEs over the lines it attributed, in a CTE named `attributed` (the
 * attributions' RETURNING rows): the clicks credited for the first time (converted_clicks, taken
 * in event id order so two batches never wait on each other in a cycle), then per report table
 * credited lines, distinct credited orders, sales and units on the day the order was placed, the
 * unverified and uncredited ones apart, and converted clicks on the click's day, in one upsert
 * per table (two in one statement could not both change a row), then the distinct orders in
 * daily_publisher_orders. The insert returns no line that was already attributed, so a re-run
 * adds nothing, and an order is attributed in one statement, so its distinct count per row adds
 * up over batches.
 */
export const creditUpserts = (): string =>
  `${ZONES_CTE}, converted AS (
  INSERT INTO converted_clicks (event_id, event_created_at)
  SELECT DISTINCT event_id, event_created_at FROM attributed WHERE ${CONVERTING_CLICK_LINES} ORDER BY event_id
  ON CONFLICT (event_id) DO NOTHING
  RETURNING event_id
), credit_rows AS (${creditRows("attributed", "attributed JOIN converted USING (event_id)")}
), `
    .concat(REPORT_TABLES.map(creditUpsert).join(", "))
    .concat(`, ${publisherOrdersUpsert("daily")}, ${publisherOrdersUpsert("hourly")}`);

/**
 * Distinct orders per zone, local day (and hour, for hourly_publisher_orders) and publisher, per
 * advertiser and for every advertiser (''): the advertiser and publisher reports' order counts,
 * which do not add up over campaigns.
 */
function publisherOrdersUpsert(grain: "daily" | "hourly"): string {
  const hourly = grain === "hourly";
  const table = `${grain}_publisher_orders`;
  const key = ["zone", "day", ...(hourly ? ["hour"] : []), "publisher_id", "advertiser_id"];
  const time = ["z.zone", localDay("at"), ...(hourly ? [localHour("at")] : [])].join(", ");
  const source = zonedSource({ keys: hourly ? ["hour"] : [] }, "credit_rows", "at");
  return `${table} AS (
  INSERT INTO ${table} AS r (${key.join(", ")}, ${ORDER_MEASURES.join(", ")})
  SELECT ${time}, publisher_id, CASE WHEN grouping(advertiser_id) = 1 THEN '' ELSE advertiser_id END,
         ${ORDER_COUNTS}
    FROM ${source}
   WHERE NOT converted_click
   GROUP BY GROUPING SETS ((${time}, publisher_id, advertiser_id), (${time}, publisher_id))
   ORDER BY ${key.map((_, index) => index + 1).join(", ")}
  ON CONFLICT (${key.join(", ")}) DO UPDATE SET ${ORDER_MEASURES.map((m) => `${m} = r.${m} + EXCLUDED.${m}`).join(", ")}
)`;
}
