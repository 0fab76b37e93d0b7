"use client";
// How every screen writes a figure, once: money "USD 1,234.50" (the account's code, 2 decimals),
// times "73.12×", percentages "1.90%", counts "12,345", units to 2 decimals at most. Cards, tables, charts,
// pacing and wallets call these; the files keep raw numbers under number formats with the same
// decimals (store/metric-columns.ts, formats/xlsx-styles.ts). Also the date range picker.
import { useEffect, useId, useState } from "react";
import { isIsoDay, utcDay } from "@/server/core/days";
import type { FigureFormat } from "@/server/store/metric-columns";
import { RangeNotice } from "./range-notice";
import { lastDays, type Range } from "./url-views";

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

/** A moment to the minute, in UTC: "2026-11-27 15:04". */
export const utcMinute = (moment: Date) => moment.toISOString().slice(0, 16).replace("T", " ");
/** When a credential was last used, created or revoked: a UTC minute, or "never". */
export const whenUtc = (moment: Date | null) => (moment ? `${utcMinute(moment)} UTC` : "never");
/** A table cell under a "(UTC)" header: the minute, or "never". */
export const minuteOrNever = (moment: Date | null) => (moment ? utcMinute(moment) : "never");
/** The same where a missing moment is simply blank (a run with no next attempt). */
export const minuteOrBlank = (moment: Date | null) => (moment ? utcMinute(moment) : "");

/**
 * A day typed as YYYY-MM-DD, as every date on the screens is written. A text field rather than
 * <input type="date">, which shows the browser's locale (MM/DD/YYYY in an American Chromium)
 * beside ISO days everywhere else. A day that does not exist, or out of order, is said beside it.
 */
function DayInput({ label, value, accept }: { label: string; value: string; accept: (day: string) => string | null }) {
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
    setProblem(isIsoDay(typed) ? accept(typed) : `${typed} is not a day: write it as YYYY-MM-DD, e.g. ${utcDay()}`);
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

export function RangePicker({ range, onChange }: { range: Range; onChange: (range: Range) => void }) {
  return (
    <>
      <fieldset className="presets">
        <legend className="visually-hidden">Range</legend>
        {[7, 30, 90].map((days) => {
          const preset = lastDays(days);
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
