"use client";
// The heatmap of hours (dayparting): a range's figures by local weekday and hour, from
// stats.hours (the same store read as GET /report/hours), as a 7 × 24 grid shaded by the chosen
// metric with a legend of the scale, the zone the hours are local to named, and below it the same
// 168 rows as a table with its CSV and XLSX downloads. The metric lives in the address (`hours`).
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { type HourRow, WEEKDAYS } from "@/server/store/hours-report";
import type { Audience } from "@/server/store/metric-columns";
import { metricFor } from "@/server/store/metric-columns";
import { QueryState } from "../query-state";
import { useTRPC } from "../trpc-client";
import { DataTable } from "./data-table";
import { formatFigure, minuteIn, type Range } from "./figures";
import { byWeekday, cellLabel, HEATMAP_METRICS, type HeatmapMetric, legendSteps, scaleTop, shadeOf } from "./hours-grid";
import styles from "./hours-heatmap.module.css";
import { metricColumns } from "./metric-columns";
import type { TableColumn } from "./table-columns";
import { useUrlState } from "./url-state";

const SHOWN = ["impressions_total", "clicks_total", "ctr", "ad_revenue", "conversions_total", "sales_revenue", "roas"] as const;
const HOURS = Array.from({ length: 24 }, (_, hour) => hour);
const SHADE_CLASSES = [styles.shade0, styles.shade1, styles.shade2, styles.shade3, styles.shade4, styles.shade5];

const COLUMNS: Record<Audience, TableColumn<HourRow>[]> = Object.fromEntries(
  (["advertiser", "publisher"] as const).map((audience) => [
    audience,
    [
      // Sorted and written to the files as the API's number (0 = Sunday), shown as its name.
      { id: "weekday", label: "Weekday", kind: "integer", value: (row: HourRow) => row.weekday, cell: (row: HourRow) => WEEKDAYS[row.weekday] },
      { id: "hour", label: "Hour", kind: "integer", value: (row: HourRow) => row.hour },
      ...metricColumns<HourRow>(SHOWN, audience),
    ],
  ]),
) as Record<Audience, TableColumn<HourRow>[]>;

const isMetric = (value: string | null): value is HeatmapMetric => (HEATMAP_METRICS as readonly string[]).includes(value ?? "");

interface Props {
  range: Range;
  accountId?: string;
  campaignId?: string;
  currency: string | null;
  audience: Audience;
  /** Names the downloads and the table: "overview", "campaign-…". */
  fileName: string;
  /**
   * Folded until opened, and read only then: the overview, whose height on a phone has a budget
   * (docs/dashboard.md) and whose every load counts against the figures' limit.
   */
  folded?: boolean;
}

export function HoursHeatmap({ range, accountId, campaignId, currency, audience, fileName, folded = false }: Props) {
  const trpc = useTRPC();
  const { params, set } = useUrlState();
  const chosen = params.get("hours");
  const metric: HeatmapMetric = isMetric(chosen) ? chosen : "impressions_total";
  // A folded heatmap is read only once opened; a metric chosen in the address opens it.
  const [open, setOpen] = useState(!folded || chosen !== null);
  const hours = useQuery({
    ...trpc.stats.hours.queryOptions({ ...range, ...(accountId ? { accountId } : {}), ...(campaignId ? { campaignId } : {}) }),
    enabled: open,
  });
  const heading = <h2 id="hours-heading">By hour of the week</h2>;
  if (!open)
    return (
      <section aria-labelledby="hours-heading">
        {heading}
        <button type="button" className="chip" onClick={() => setOpen(true)}>
          Show the hours of the week
        </button>
      </section>
    );
  return (
    <section aria-labelledby="hours-heading">
      {heading}
      <form className="toolbar" aria-label="Heatmap" onSubmit={(e) => e.preventDefault()}>
        <label>
          Shade by{" "}
          <select value={metric} onChange={(e) => set({ hours: e.target.value === "impressions_total" ? null : e.target.value }, { replace: true })}>
            {HEATMAP_METRICS.map((field) => (
              <option key={field} value={field}>
                {metricFor(field, audience).label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <QueryState query={hours} what="hours">
        {(data) => (
          <>
            <p className="muted" data-testid="hours-zone">
              Hours in {data.zone}, counted from {minuteIn(data.hoursSince, data.zone)}: a range that starts earlier shows only the hours since.
            </p>
            <HoursGrid rows={data.rows} metric={metric} audience={audience} currency={currency} />
            <DataTable
              caption={`Figures by weekday and hour (${data.zone}) from ${range.startDate} to ${range.endDate}`}
              columns={COLUMNS[audience]}
              rows={data.rows}
              rowKey={(row) => `${row.weekday}-${row.hour}`}
              currency={currency}
              defaultSort={{ id: "weekday", descending: false }}
              fileName={`${fileName}-hours-${range.startDate}-${range.endDate}`}
              sheet="Hours"
              urlPrefix="hours_"
              pinned={2}
            />
          </>
        )}
      </QueryState>
    </section>
  );
}

function HoursGrid({ rows, metric, audience, currency }: { rows: HourRow[]; metric: HeatmapMetric; audience: Audience; currency: string | null }) {
  const top = scaleTop(rows, metric);
  const { label, format } = metricFor(metric, audience);
  return (
    <>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take focus to scroll from the keyboard */}
      {/* biome-ignore lint/a11y/useSemanticElements: a group, not a fieldset of form controls, nor a landmark per grid */}
      <div className={`${styles.box} table-scroll`} role="group" aria-label="Heatmap of hours, scrolls sideways" tabIndex={0}>
        <table className={styles.grid}>
          <caption className="visually-hidden">{`${label} by weekday and hour`}</caption>
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Weekday</span>
              </th>
              {HOURS.map((hour) => (
                <th key={hour} scope="col">
                  {hour}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {byWeekday(rows).map((day, weekday) => (
              <tr key={WEEKDAYS[weekday]}>
                <th scope="row">{WEEKDAYS[weekday]}</th>
                {day.map((row) => {
                  const words = cellLabel(row, metric, audience, currency);
                  return (
                    <td
                      key={row.hour}
                      className={`${styles.cell} ${SHADE_CLASSES[shadeOf(row[metric], top)]}`}
                      aria-label={words}
                      title={words}
                      data-shade={shadeOf(row[metric], top)}
                    />
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ul className={styles.legend} aria-label={`Scale of ${label}`}>
        <li>
          <span className={`${styles.swatch} ${styles.shade0}`} /> none
        </li>
        {legendSteps(top).map((step) => (
          <li key={step.shade}>
            <span className={`${styles.swatch} ${SHADE_CLASSES[step.shade]}`} /> up to {formatFigure(step.upTo, format, currency)}
          </li>
        ))}
      </ul>
    </>
  );
}
