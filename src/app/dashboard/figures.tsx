"use client";
// What the dashboard's screens share: number formats, money with its currency, the date range
// picker. The figure cards are in kpi-cards.tsx, the daily charts in daily-charts.tsx.
import { RangeNotice } from "./range-notice";
import { lastDays, type Range } from "./url-views";

export type { Range } from "./url-views";
export { lastDays } from "./url-views";

export const whole = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
export const money = new Intl.NumberFormat("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
export const percent = new Intl.NumberFormat("en", { style: "percent", maximumFractionDigits: 2 });
/**
 * Money with its currency code beside it: "USD 1,234.50". Without a code (every account at once,
 * in several currencies) the amount alone; "—" where there is no amount.
 */
export function formatMoney(value: number | null, currency: string | null | undefined): string {
  if (value === null) return "—";
  return currency ? `${currency} ${money.format(value)}` : money.format(value);
}
/** A moment to the minute, in UTC: "2026-11-27 15:04". */
export const utcMinute = (moment: Date) => moment.toISOString().slice(0, 16).replace("T", " ");
/** When a credential was last used, created or revoked: a UTC minute, or "never". */
export const whenUtc = (moment: Date | null) => (moment ? `${utcMinute(moment)} UTC` : "never");
/** A table cell under a "(UTC)" header: the minute, or "never". */
export const minuteOrNever = (moment: Date | null) => (moment ? utcMinute(moment) : "never");
/** The same where a missing moment is simply blank (a run with no next attempt). */
export const minuteOrBlank = (moment: Date | null) => (moment ? utcMinute(moment) : "");

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
      <label>
        From
        <input type="date" value={range.startDate} max={range.endDate} onChange={(e) => e.target.value && onChange({ ...range, startDate: e.target.value })} />
      </label>
      <label>
        To
        <input type="date" value={range.endDate} min={range.startDate} onChange={(e) => e.target.value && onChange({ ...range, endDate: e.target.value })} />
      </label>
      <RangeNotice />
    </>
  );
}
