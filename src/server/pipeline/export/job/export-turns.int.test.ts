// Export destinations take turns at the export loop: one destination with a backlog of batches
// delays another by one batch, not by its backlog, and both are delivered whole in the end.
import { describe, expect, it } from "vitest";
import { exportTestBed } from "@/testing/export-bucket";
import { publisherWithEvents } from "@/testing/export-traffic";
import { runDueExports } from "./run-exports";

const HOUR_MS = 3_600_000;
const { YESTERDAY, later: LATER, destinationFor } = exportTestBed();

describe("a destination with a backlog of batches", () => {
  it("delays another destination by one batch; each gets every row", async () => {
    const t1 = YESTERDAY + 10 * HOUR_MS;
    const behind = await publisherWithEvents([t1, t1 + HOUR_MS, t1 + 2 * HOUR_MS, t1 + 3 * HOUR_MS]);
    const other = await publisherWithEvents([t1]);
    const first = await destinationFor(behind.publisher.id, ["ad_events"]);
    const second = await destinationFor(other.publisher.id, ["ad_events"]);
    // One row a batch: the first destination has four batches with rows to deliver.
    const { runs, unfinished } = await runDueExports({ now: LATER, maxRowsPerBatch: 1, rowsPerFile: 10 });
    expect(unfinished).toBe(false);
    expect(runs.every((run) => run.status === "succeeded")).toBe(true);
    const order = runs.map((run) => (run.destinationId === first.id ? "first" : "second"));
    // Whichever goes first (destinations made in the same millisecond go by id), the other is next.
    expect(new Set(order.slice(0, 2))).toEqual(new Set(["first", "second"]));
    const rowsOf = (id: string) => runs.filter((run) => run.destinationId === id).reduce((sum, run) => sum + run.rows, 0);
    expect([rowsOf(first.id), rowsOf(second.id)]).toEqual([4, 1]);
  });
});
