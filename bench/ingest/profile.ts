// `npm run bench:ingest:profile -- [--seconds 8] [--conversions] [--heap]`: the collector under the ingest
// load (or, with --conversions, under the conversion intake's orders), profiled. The collector runs
// in this process under V8's sampling profiler; autocannon runs in a child process with beacons
// signed (or orders built) beforehand, so the profile shows the collector alone. Prints req/s, p99,
// `top`'s view of the machine, the functions with the most self time, and the inclusive time of
// Tally's own functions. With --heap, also what is allocated a request (V8's sampling heap
// profiler, garbage included), by the three innermost functions that allocated it.
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { conversionBody } from "../conversions/orders";
import { BENCH_RATE_LIMITS, log, startDatabase } from "../lib/stack";
import { BENCH_SIGNING_KEYS, BROWSER_HEADERS, impressionPath } from "./beacons";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "8" }, conversions: { type: "boolean", default: false }, heap: { type: "boolean", default: false } },
});

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const { postgres, url } = await startDatabase("profile");
process.env.DATABASE_URL = url;
process.env.BEACON_SIGNING_KEYS = BENCH_SIGNING_KEYS;
Object.assign(process.env, BENCH_RATE_LIMITS);
const { seedDemoData } = await import("../../prisma/seed");
await seedDemoData(() => {});
const { createCollectorServer } = await import("@/collector/server");
const { disconnectDb } = await import("@/server/db/client");
const server = createCollectorServer();
let served = 0;
server.on("request", () => {
  served += 1;
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as AddressInfo).port;

const requestsFile = path.join(os.tmpdir(), `tally-profile-requests-${process.pid}.json`);
const issuedAt = Math.floor(Date.now() / 1000);
const createdAt = new Date().toISOString();
const requests = Array.from({ length: 100_000 }, (_, n) =>
  values.conversions
    ? { path: "/v1/beacon/conversion", body: conversionBody(n, createdAt) }
    : { path: impressionPath("profile", issuedAt, `profile-${n}`), body: `{"session_id":"profile-${n}"}` },
);
writeFileSync(requestsFile, JSON.stringify(requests));

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.start");
if (values.heap) {
  await session.post("HeapProfiler.startSampling", { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}
const loader = `
  const autocannon = require(${JSON.stringify(path.resolve("node_modules/autocannon"))});
  const requests = require(${JSON.stringify(requestsFile)}); let i = 0;
  autocannon({ url: "http://127.0.0.1:${port}", connections: 64, duration: ${Number(values.seconds)},
    requests: [{ method: "POST", headers: ${JSON.stringify({ "content-type": "application/json", ...BROWSER_HEADERS })},
      setupRequest: (r) => ({ ...r, ...requests[i++ % requests.length] }) }] },
    (error, r) => console.log("bench: collector " + Math.round(r.requests.average) + " req/s, p50 " + r.latency.p50 + " ms, p99 " + r.latency.p99 + " ms, 2xx " + r["2xx"] + ", other " + r.non2xx));`;
const exited = (command: string, args: string[]) => new Promise((resolve) => spawn(command, args, { stdio: "inherit" }).on("exit", resolve));
// Both exit promises exist before either process can end.
await Promise.all([
  exited(process.execPath, ["-e", loader]),
  exited("bash", ["-c", `sleep ${Math.max(2, Number(values.seconds) / 2)}; top -b -n 1 | head -12`]),
]);
const allocated = values.heap ? (await session.post("HeapProfiler.stopSampling")).profile : undefined;
const { profile } = await session.post("Profiler.stop");
rmSync(requestsFile, { force: true });

const nodes = new Map((profile.nodes as ProfileNode[]).map((node) => [node.id, node]));
const parents = new Map<number, number>();
for (const node of nodes.values()) for (const child of node.children ?? []) parents.set(child, node.id);
const nameOf = (node: ProfileNode) => {
  const frame = node.callFrame;
  return `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber}`;
};
const selfTime = new Map<string, number>();
// Inclusive: a sample counts once for every function on its stack (once, however deep it recurses).
const inclusiveTime = new Map<string, number>();
profile.samples!.forEach((id, i) => {
  const delta = profile.timeDeltas![i] ?? 0;
  const name = nameOf(nodes.get(id)!);
  selfTime.set(name, (selfTime.get(name) ?? 0) + delta);
  const onStack = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) onStack.add(nameOf(nodes.get(at)!));
  for (const frame of onStack) inclusiveTime.set(frame, (inclusiveTime.get(frame) ?? 0) + delta);
});
const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
const top = (times: Map<string, number>, count: number) =>
  [...times]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, time]) => `${((100 * time) / total).toFixed(1).padStart(5)}%  ${name}`);
log("collector process, self time by function:");
for (const line of top(selfTime, 20)) console.log(line);
log("collector process, inclusive time of Tally's own functions (src/):");
const own = new Map([...inclusiveTime].filter(([name]) => !name.includes("node_modules") && /\.ts:\d+$/.test(name)));
for (const line of top(own, 25)) console.log(line);

if (allocated) {
  interface AllocationNode {
    callFrame: ProfileNode["callFrame"];
    selfSize: number;
    children: AllocationNode[];
  }
  const bySite = new Map<string, number>();
  const visit = (node: AllocationNode, stack: string[]) => {
    const here = [nameOf(node as unknown as ProfileNode), ...stack].slice(0, 3);
    if (node.selfSize > 0) bySite.set(here.join(" < "), (bySite.get(here.join(" < ")) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child, here);
  };
  visit(allocated.head as AllocationNode, []);
  const bytes = [...bySite.values()].reduce((a, b) => a + b, 0);
  log(`collector process, allocated: ${(bytes / 1e6).toFixed(0)} MB for ${served} requests, ${(bytes / served / 1024).toFixed(1)} KB a request; by where:`);
  for (const [site, size] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${((100 * size) / bytes).toFixed(1).padStart(5)}%  ${site}`);
}

server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
await disconnectDb();
await postgres.stop();
process.exit(0);
