"use client";
// The attribution windows every campaign type credits sales by, named beside the overview's
// figures: a campaign may have its own (its page says so).
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-client";

export function WindowsInForce() {
  const trpc = useTRPC();
  const windows = useQuery(trpc.attribution.windows.queryOptions());
  if (!windows.data) return null;
  const types = Object.entries(windows.data).map(
    ([type, w]) => `${type}: click ${w.clickDays} d, view ${w.viewDays} d${w.viewThrough === "views_only" ? " (viewable views only)" : ""}`,
  );
  return (
    <p className="muted windows-note" data-testid="windows-in-force">
      Sales credited within these attribution windows: {types.join(" · ")}. A campaign&apos;s page names its own where it has them.
    </p>
  );
}
