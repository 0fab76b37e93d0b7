// How Tally starts the Next.js server: `npm start`, the launcher (`npm run dev`, `npm run
// start:local`) and the benchmarks and hostile suite that run the server as it runs in production.
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * V8 flags of the Next.js server process: a young generation of 32 MB semi-spaces. A beacon's or an
 * order's request is held until its group commit, so under load the requests in flight live
 * through the young generation's collections and get promoted, and the old generation's
 * collections then cost the beacon route most. Measured: the beacon route answers a few per cent
 * more against the empty route (bench/results.md; docs/decisions/0019-next-server-young-generation.md);
 * the collector, whose requests are held far shorter, gained nothing. `npm start` carries the same flags (a unit test keeps them equal); where the
 * server is started otherwise, set them in NODE_OPTIONS (docs/operations.md).
 */
export const NEXT_SERVER_NODE_FLAGS = ["--max-semi-space-size=32"] as const;

/** Tally's Next.js server (serve-next.ts), which tells routes each request's connection address. */
export function nextServerEntry(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), "serve-next.ts");
}

/** Arguments for process.execPath that run Tally's Next.js server in `mode` with Tally's flags. */
export function nextServerArgs(mode: "dev" | "start", ...rest: string[]): string[] {
  return [...NEXT_SERVER_NODE_FLAGS, "--import", "tsx", nextServerEntry(), mode, ...rest];
}
