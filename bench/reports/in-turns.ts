// Timing several variants of a request under the same load (`npm run bench:reports:before-after`):
// one request of each variant per turn, one after another, so whatever else the machine does
// in a moment falls on every variant alike; the first of a turn rotates, so that none always
// follows the same one.
import { percentile, round } from "./timing";

export interface Variant {
  /** Which server and zone, for the printout: "before", "after, UTC"... */
  label: string;
  url: string;
  /** Bearer key; null: none (GET /api/health). */
  key: string | null;
}

async function timeOnce(variant: Variant): Promise<number> {
  const headers = variant.key ? { Authorization: `Bearer ${variant.key}` } : undefined;
  const started = performance.now();
  const response = await fetch(variant.url, { headers });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${variant.url} (${variant.label}) answered ${response.status}`);
  return performance.now() - started;
}

/** Each variant's p95 in ms over `count` requests, sent in turns after 10 turns to warm up. */
export async function p95sInTurns(variants: Variant[], count: number): Promise<number[]> {
  const times = variants.map((): number[] => []);
  for (let turn = 0; turn < 10 + count; turn += 1) {
    for (let k = 0; k < variants.length; k += 1) {
      const i = (turn + k) % variants.length;
      const ms = await timeOnce(variants[i]!);
      if (turn >= 10) times[i]!.push(ms);
    }
  }
  return times.map((sorted) =>
    round(
      percentile(
        sorted.sort((a, b) => a - b),
        95,
      ),
    ),
  );
}
