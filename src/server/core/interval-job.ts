// Background work inside a long-running server (next dev, next start): a job run every interval,
// one instance per process (kept on globalThis across dev reloads), runs never overlapping.
// Serverless deployments call the same work from cron routes instead.
import { countStepFailure } from "@/server/core/counters";

export interface IntervalJob {
  stop: () => void;
}

const jobs = globalThis as unknown as { tallyIntervalJobs?: Map<string, IntervalJob> };

export function startIntervalJob(options: {
  name: string;
  intervalMs: number;
  firstDelayMs: number;
  run: () => Promise<void>;
  log: (line: string) => void;
}): IntervalJob {
  jobs.tallyIntervalJobs ??= new Map();
  const existing = jobs.tallyIntervalJobs.get(options.name);
  if (existing) return existing;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;

  const tick = async () => {
    try {
      await options.run();
      if (failing) options.log(`tally: ${options.name}: working again`);
      failing = false;
    } catch (error) {
      countStepFailure(options.name);
      // One line when something (usually the database) goes away, not one per interval.
      if (!failing) options.log(`tally: ${options.name} failed, retrying every ${options.intervalMs / 1000} s: ${(error as Error).message}`);
      failing = true;
    }
    if (!stopped) timer = setTimeout(tick, options.intervalMs).unref();
  };
  timer = setTimeout(tick, Math.min(options.intervalMs, options.firstDelayMs)).unref();

  const job = {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      jobs.tallyIntervalJobs?.delete(options.name);
    },
  };
  jobs.tallyIntervalJobs.set(options.name, job);
  return job;
}
