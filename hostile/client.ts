// What every hostile test file shares: the stack's addresses, plain HTTP helpers that behave like a
// client on the internet (no Fetch handler called in-process), the database to check what was
// stored, and the servers' memory.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import pg from "pg";
import { inject } from "vitest";
import { checkAnswer } from "@/testing/api/contract";
import { HOSTILE_ENV, type HostileStack } from "./global-stack";
import { WAITING_SQL } from "./waiting";

export const stack: HostileStack = inject("hostile");
// Domain functions the tests call (fixtures, exports) use the stack's database and keys.
process.env.DATABASE_URL = stack.databaseUrl;
for (const [name, value] of Object.entries(HOSTILE_ENV)) process.env[name] = value;

export interface Host {
  name: "next start" | "collector";
  url: string;
  pid: number;
}
export const HOSTS: Host[] = [
  { name: "next start", url: stack.nextUrl, pid: stack.nextPid },
  { name: "collector", url: stack.collectorUrl, pid: stack.collectorPid },
];

export const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";

let addressCounter = 0;
/**
 * A fresh client address (198.18.0.0/16, a benchmark range), so limits per address stay out of
 * the way unless a test wants them. Every file counts from the start of the range: the servers
 * outlive a file, so an address a test floods comes from floodAddress() instead.
 */
export function freshAddress(): string {
  addressCounter += 1;
  return `198.18.${Math.floor(addressCounter / 250) % 250}.${(addressCounter % 250) + 1}`;
}

/** An address no freshAddress() call returns (198.19.0.0/16), for a test that drives one to its limit. */
export function floodAddress(): string {
  return `198.19.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: () => unknown;
}

// The dashboard's own API (/api/trpc), its crons, health and metrics are not the public API: the
// document describes what other programs may call, so those answers are not held to it.
const NOT_PUBLIC = /^\/api\//;

/**
 * fetch(), with the answer checked against Tally's API document (src/testing/api/contract.ts):
 * whatever an attack sends to a public route, the built app answers only what the document declares.
 */
export async function checkedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, init);
  if (!NOT_PUBLIC.test(new URL(url).pathname)) await checkAnswer({ method: init.method ?? "GET", url }, response);
  return response;
}

/** POSTs `body` (a string is sent as it is) to `url` from `address`; the answer is checked against the API document. */
export async function post(
  url: string,
  body: unknown,
  options: { address?: string; contentType?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await checkedFetch(url, {
    method: "POST",
    headers: {
      "Content-Type": options.contentType ?? "application/json",
      "User-Agent": CHROME,
      "X-Forwarded-For": options.address ?? freshAddress(),
      ...options.headers,
    },
    body: typeof body === "string" || body instanceof Uint8Array ? (body as string) : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as unknown };
}

export interface ServedAd {
  ad_id: string;
  campaign_id: string;
  impression_url: string;
  view_url: string;
  click_url: string;
}

/** Asks a host for ads for `session` and returns the first one of the placement. */
export async function serve(host: Host, publisherId: string, session: string, types: string[] = ["banner"]): Promise<ServedAd> {
  const answer = await post(`${host.url}/v1/ads`, {
    publisher_id: publisherId,
    session_id: session,
    context: "search",
    term: "coffee",
    placements: [{ name: "slot", types }],
  });
  if (answer.status !== 200) throw new Error(`${host.name} /v1/ads answered ${answer.status}: ${answer.text}`);
  const ad = (answer.json() as { ads: Record<string, ServedAd[]> }).ads.slot?.[0];
  if (!ad) throw new Error(`${host.name} served no ad for ${publisherId}`);
  return ad;
}

let pool: pg.Pool | undefined;
/** A query on the stack's database. */
export async function sql<Row extends object>(text: string, values: unknown[] = []): Promise<Row[]> {
  pool ??= new pg.Pool({ connectionString: stack.databaseUrl, max: 3 });
  return (await pool.query<Row>(text, values)).rows;
}
export async function closeSql(): Promise<void> {
  await pool?.end();
  pool = undefined;
}

/** Resident memory of a process and every process under it, in MB (Linux /proc). */
export function residentMb(pid: number): number {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // the process ended while we looked
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i += 1) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  let kb = 0;
  for (const member of tree) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${member}/status`, "utf8"));
      kb += Number(match?.[1] ?? 0);
    } catch {
      // ended
    }
  }
  return kb / 1024;
}

/**
 * Polls `check` every `everyMs` until it returns true, or fails after `timeoutMs`. Checks that ask
 * a rate-limited route poll slower, as a client within its rate would.
 */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 30_000, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Waits until the server's settle loop has settled every accepted beacon and order: a 202 means
 * it is in a log; statuses, spend, rollups and stored orders exist once it is settled.
 */
export async function settled(timeoutMs = 30_000): Promise<void> {
  await eventually("every accepted beacon and order is settled", async () => (await sql(WAITING_SQL)).length === 0, timeoutMs);
}

/**
 * POSTs a body that never ends (4 KiB chunks, no length) until the server answers, or 64 MiB are
 * sent; resolves with the status and how much had been sent by then.
 */
export function postEndless(url: string, headers: Record<string, string> = {}): Promise<{ status: number; sentBytes: number }> {
  return new Promise((resolve, reject) => {
    let sentBytes = 0;
    let answered = false;
    const request = http.request(
      url,
      { method: "POST", headers: { "Content-Type": "application/json", "X-Forwarded-For": freshAddress(), ...headers } },
      (response) => {
        answered = true;
        response.resume();
        resolve({ status: response.statusCode ?? 0, sentBytes });
        request.destroy();
      },
    );
    request.on("error", (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(4096, 0x20);
    const limit = 64 * 1024 * 1024;
    // One chunk at a time, each once the last was flushed: the client reads the answer as soon as it comes.
    const pump = () => {
      if (answered) return;
      if (sentBytes >= limit) return void request.end();
      sentBytes += chunk.length;
      request.write(chunk, () => setImmediate(pump));
    };
    request.write("{");
    pump();
  });
}

/**
 * Starts another server against the stack's database, as the stack starts its own (`args` for
 * node, `env` over the stack's), resolving once `readyPath` answers; its stderr is passed on
 * under its name. The caller stops it (stopServers).
 */
export async function startExtraServer(name: string, args: string[], env: Record<string, string>, readyPath: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...stack.serverEnv, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  child.stderr?.on("data", (chunk: Buffer) => process.stderr.write(`${name}: ${chunk.toString()}`));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      await fetch(`http://127.0.0.1:${port}${readyPath}`);
      return child;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`${name} did not start within 120 s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Stops servers started by startExtraServer, and waits until they are gone. */
export async function stopServers(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }),
  );
}
