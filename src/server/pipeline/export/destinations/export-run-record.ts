// A stored export run as a destination's history lists it (destinationRuns), apart from the
// exporter's own summary of a run it just made (job/run-exports.ts).

/** One delivery run as the dashboard lists it: what it covered, how it ended, what it wrote and set aside. */
export interface ExportRunRecord {
  id: string;
  type: string;
  status: string;
  backfill: boolean;
  rangeStart: Date;
  rangeEnd: Date;
  attempt: number;
  rows: number;
  files: number;
  bytes: number;
  error: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  nextAttemptAt: Date | null;
  setAsideRows: number;
  /** Each row left out: its id, the reason, and how many rows share it. */
  setAside: { id: string; reason: string; rows: number }[];
}
