import { describe, expect, it } from "vitest";
import { startIntervalJob } from "./interval-job";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("interval jobs", () => {
  it("run one at a time, say once that they fail and once that they work again, and stop", async () => {
    const lines: string[] = [];
    let runs = 0;
    let running = 0;
    let overlapped = false;
    const job = startIntervalJob({
      name: "test-job",
      intervalMs: 5,
      firstDelayMs: 0,
      log: (line) => lines.push(line),
      run: async () => {
        runs += 1;
        running += 1;
        if (running > 1) overlapped = true;
        await sleep(15); // longer than the interval
        running -= 1;
        if (runs >= 2 && runs <= 4) throw new Error("database unreachable");
      },
    });
    // A second start in the same process is the same job.
    expect(startIntervalJob({ name: "test-job", intervalMs: 5, firstDelayMs: 0, log: () => {}, run: async () => {} })).toBe(job);
    while (runs < 6) await sleep(5);
    job.stop();
    const after = runs;
    await sleep(60);
    expect(runs).toBeLessThanOrEqual(after + 1);
    expect(overlapped).toBe(false);
    expect(lines).toEqual(["tally: test-job failed, retrying every 0.005 s: database unreachable", "tally: test-job: working again"]);
  });
});
