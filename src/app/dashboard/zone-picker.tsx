"use client";
// The zone in the dashboard's header: staff choose one of the zones the report tables keep (kept
// in the address as `tz`, as the range is); a member reads it, their account's.
import { useId } from "react";
import { useUrlState } from "./url-state";
import { useZone } from "./zone-context";

export function ZonePicker() {
  const { zone, viewDefault, kept, chooses } = useZone();
  const { set } = useUrlState();
  const id = useId();
  if (!chooses) {
    return (
      <span className="muted dash-zone" title="Your account's time zone">
        Days and times in {zone}
      </span>
    );
  }
  // The view's own zone leaves the address: opening another account then opens in its zone.
  return (
    <span className="dash-zone">
      <label htmlFor={id} className="dash-zone-words">
        Days and times in
      </label>{" "}
      <select id={id} value={zone} onChange={(e) => set({ tz: e.target.value === viewDefault ? null : e.target.value })}>
        {kept.map((name) => (
          <option key={name} value={name}>
            {name === viewDefault ? `${name} (this view's)` : name}
          </option>
        ))}
      </select>
    </span>
  );
}
