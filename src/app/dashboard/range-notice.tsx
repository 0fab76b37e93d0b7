"use client";
// Beside every range picker: when the address asked for a range a view cannot show (not days, the
// wrong order, over 366 days), what it asked and what is shown instead, so figures of other days
// are never read as the ones asked for. Choosing a range replaces the address, and the notice goes.
import { useUrlRange } from "./url-state";

export function RangeNotice() {
  const [, , problem] = useUrlRange();
  if (!problem) return null;
  return (
    <p role="status" className="notice range-notice" data-testid="range-notice">
      {problem}
    </p>
  );
}
