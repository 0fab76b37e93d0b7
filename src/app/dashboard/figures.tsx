"use client";
// How every screen writes a figure, once: money "USD 1,234.50" (the account's code, 2 decimals),
// times "73.12×", percentages "1.90%", counts "12,345", units to 2 decimals at most. Cards, tables, charts,
// pacing and wallets call these; the files keep raw numbers under number formats with the same
// decimals (store/metric-columns.ts, formats/xlsx-styles.ts). Also the date range picker.
import { useEffect, useId, useState } from "react";
import { isIsoDay } from "@/server/core/days";
import { daysFromLocalToday, offsetLabel, offsetMinutes, UTC } from "@/server/core/time-zones";
import type { FigureFormat } from "@/server/store/metric-columns";
import { RangeNotice } from "./range-notice";
import { lastDays, type Range } from "./url-views";
import { useZone } from "./zone-context";

export type { Range } from "./url-views";
export { lastDays } from "./url-views";

export const whole = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
export const money = new Intl.NumberFormat("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
export const percent = new Intl.NumberFormat("en", { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const units = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });
const signedPercent = new Intl.NumberFormat("en", { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: "exceptZero" });

/**
 * Money with its currency code before it: "USD 1,234.50". Without a code (every account at once,
 * in several currencies) the amount alone; "—" where there is no amount.
 */
export function formatMoney(value: number | null, currency: string | null | undefined): string {
  if (value === null) return "—";
  return currency ? `${currency} ${money.format(value)}` : money.format(value);
}

/** A figure in its format; "—" where there is nothing to show (a ratio with nothing to divide by). */
export function formatFigure(value: number | null, format: FigureFormat, currency: string | null): string {
  if (value === null || Number.isNaN(value)) return "—";
  switch (format) {
    case "money":
      return formatMoney(value, currency);
    case "percent":
      return percent.format(value);
    case "times":
      return `${money.format(value)}×`;
    case "units":
      return units.format(value);
    default:
      return whole.format(value);
  }
}

/** A relative change with its sign: "+12.50%", "−3.00%" (a true minus), "0.00%". */
export const formatChange = (change: number) => signedPercent.format(change).replace("-", "−");

/** A chart axis's tick: short ("1.2K"), as the tooltip gives the whole figure. */
export const formatTick = (value: number) => compact.format(value);

/**
 * How a moment is written on every screen: the local minute in the viewer's zone (zone-context.tsx)
 * and the zone's offset from UTC at that moment, "2026-12-02 09:15 UTC−03:00" in São Paulo,
 * "2026-12-02 17:30 UTC+05:45" in Kathmandu, plain "2026-12-02 12:15 UTC" in UTC. The offset, not
 * the zone's name, so an hour a daylight-saving change repeats reads twice, differently.
 */
export function minuteIn(moment: Date, zone: string): string {
  const local = new Date(moment.getTime() + offsetMinutes(moment, zone) * 60_000);
  return `${local.toISOString().slice(0, 16).replace("T", " ")} ${zone === UTC ? UTC : offsetLabel(moment, zone)}`;
}
/** When a credential was last used, created or revoked: a local minute, or "never". */
export const whenIn = (moment: Date | null, zone: string) => (moment ? minuteIn(moment, zone) : "never");
/** A table cell of moments: the local minute, or "never". */
export const minuteOrNever = whenIn;
/** The same where a missing moment is simply blank (a run with no next attempt). */
export const minuteOrBlank = (moment: Date | null, zone: string) => (moment ? minuteIn(moment, zone) : "");

/** A moment written by `write` in the viewer's zone: a table cell's (table-columns.ts momentColumn). */
export function Moment({ at, write }: { at: Date | null; write: (at: Date | null, zone: string) => string }) {
  const { zone } = useZone();
  return <>{write(at, zone)}</>;
}

/** The moment writers above, in the viewer's zone: what a screen calls. */
export function useMoments() {
  const { zone } = useZone();
  return {
    zone,
    minute: (moment: Date) => minuteIn(moment, zone),
    orNever: (moment: Date | null) => whenIn(moment, zone),
    orBlank: (moment: Date | null) => minuteOrBlank(moment, zone),
  };
}

/**
 * A day typed as YYYY-MM-DD, as every date on the screens is written. A text field rather than
 * <input type="date">, which shows the browser's locale (MM/DD/YYYY in an American Chromium)
 * beside ISO days everywhere else. A day that does not exist, or out of order, is said beside it.
 */
function DayInput({ label, value, accept }: { label: string; value: string; accept: (day: string) => string | null }) {
  const { zone } = useZone();
  const [text, setText] = useState(value);
  const [problem, setProblem] = useState<string | null>(null);
  const problemId = useId();
  // The range may change elsewhere (a preset, the back button): the field follows it.
  useEffect(() => {
    setText(value);
    setProblem(null);
  }, [value]);
  const take = (typed: string) => {
    setText(typed);
    if (typed.length < 10) return setProblem(null);
    setProblem(isIsoDay(typed) ? accept(typed) : `${typed} is not a day: write it as YYYY-MM-DD, e.g. ${daysFromLocalToday(0, zone)}`);
  };
  return (
    <span className="day-input">
      <label>
        {label}
        <input
          type="text"
          inputMode="numeric"
          pattern="\d{4}-\d{2}-\d{2}"
          placeholder="YYYY-MM-DD"
          maxLength={10}
          size={10}
          value={text}
          aria-invalid={problem !== null}
          aria-describedby={problem ? problemId : undefined}
          onChange={(e) => take(e.target.value.trim())}
          onBlur={() => text.length < 10 && text !== value && setProblem(`${text || "Nothing"} is not a day: write it as YYYY-MM-DD`)}
        />
      </label>
      {/* Beside the field, not in its label: the field keeps its name, and the problem is its description. */}
      {problem ? (
        <span id={problemId} className="field-problem">
          {problem}
        </span>
      ) : null}
    </span>
  );
}

/** The range's presets and days, local dates in the viewer's zone, which it names ("Days in America/Sao_Paulo"). */
export function RangePicker({ range, onChange }: { range: Range; onChange: (range: Range) => void }) {
  const { zone } = useZone();
  return (
    <>
      <span className="muted range-zone">Days in {zone}</span>
      <fieldset className="presets">
        <legend className="visually-hidden">Range</legend>
        {[7, 30, 90].map((days) => {
          const preset = lastDays(days, zone);
          return (
            <button
              key={days}
              type="button"
              className="chip"
              aria-pressed={range.startDate === preset.startDate && range.endDate === preset.endDate}
              onClick={() => onChange(preset)}
            >
              Last {days} days
            </button>
          );
        })}
      </fieldset>
      <DayInput
        label="From"
        value={range.startDate}
        accept={(day) => {
          if (day > range.endDate) return `From must be on or before ${range.endDate}`;
          onChange({ ...range, startDate: day });
          return null;
        }}
      />
      <DayInput
        label="To"
        value={range.endDate}
        accept={(day) => {
          if (day < range.startDate) return `To must be on or after ${range.startDate}`;
          onChange({ ...range, endDate: day });
          return null;
        }}
      />
      <RangeNotice />
    </>
  );
}
