// The one ClickHouse client of a process, made from CLICKHOUSE_URL: the HTTP interface in
// production (ClickHouse Cloud or a server of one's own), or an in-process ClickHouse (chdb) for
// `npm run dev -- --clickhouse` and the tests, through the same client API. chdb is a development
// dependency and loaded only for a `chdb:` URL, so a production install never carries its engine.
import { randomUUID } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { type ClickHouseClient, type ClickHouseSettings, createClient, parseError } from "@clickhouse/client";
import type { ChdbConnection } from "chdb/connection";
import { env } from "@/env";
import { fileInsertStatement } from "./file-insert.sql";

/** Where an insert's rows wait for chdb to read them, inside its data folder (insertThroughFile). */
const INSERTS_FOLDER = "tally-inserts";

const holder = globalThis as unknown as {
  tallyClickhouse?: Promise<ClickHouseClient>;
  tallyClickhouseUrl?: string;
  tallyChdb?: { connection: ChdbConnection; folder: string };
};

/** What CLICKHOUSE_URL names: a server's HTTP interface, or a data folder of an in-process engine. */
export type ClickhouseTarget = { kind: "http"; url: string; database: string } | { kind: "chdb"; folder: string };

export function clickhouseTarget(url: string): ClickhouseTarget {
  if (url.startsWith("chdb:")) return { kind: "chdb", folder: path.resolve(url.slice("chdb:".length)) };
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\/+/, "")) || "default";
  return { kind: "http", url, database };
}

// Every call sends these: through chdb a call's settings stay on the session for the calls after
// it, so a setting any call needs is set by every call (../shared/recipes.md: a token left set
// silently dropped later inserts as duplicates).
const EVERY_CALL: ClickHouseSettings = { insert_deduplication_token: "", date_time_output_format: "iso", output_format_json_quote_64bit_integers: 1 };

async function connect(url: string): Promise<ClickHouseClient> {
  const target = clickhouseTarget(url);
  if (target.kind === "http") {
    const parsed = new URL(target.url);
    return createClient({
      url: `${parsed.protocol}//${parsed.host}`,
      username: decodeURIComponent(parsed.username) || "default",
      password: decodeURIComponent(parsed.password),
      database: target.database,
      clickhouse_settings: EVERY_CALL,
      request_timeout: 60_000,
    });
  }
  // A specifier the bundler cannot follow: chdb's engine is hundreds of megabytes.
  const moduleName = "chdb/connection";
  const { createChdbConnection } = (await import(/* webpackIgnore: true */ moduleName)) as typeof import("chdb/connection");
  // chdb declares the client's Connection type from @clickhouse/client-common, which the client
  // itself now bundles: the same interface declared twice, so TypeScript needs telling.
  // Rows of inserts a process died in the middle of: only the one process holding the folder writes there.
  await rm(path.join(target.folder, INSERTS_FOLDER), { recursive: true, force: true });
  const chdb = createChdbConnection({ path: target.folder });
  holder.tallyChdb = { connection: chdb, folder: target.folder };
  const connection = chdb as unknown as NonNullable<Parameters<typeof createClient>[0]>["connection"];
  return createClient({ connection, clickhouse_settings: EVERY_CALL });
}

/** The process's client for CLICKHOUSE_URL (which must be set). */
export function clickhouse(): Promise<ClickHouseClient> {
  const url = env().CLICKHOUSE_URL;
  if (!url) throw new Error("CLICKHOUSE_URL is not set");
  if (holder.tallyClickhouse && holder.tallyClickhouseUrl !== url) {
    throw new Error("CLICKHOUSE_URL changed while a client was open; one ClickHouse per process");
  }
  holder.tallyClickhouseUrl = url;
  holder.tallyClickhouse ??= connect(url);
  return holder.tallyClickhouse;
}

/** Closes the client, for CLIs and tests that must let the process exit. */
export async function closeClickhouse(): Promise<void> {
  const open = holder.tallyClickhouse;
  holder.tallyClickhouse = undefined;
  holder.tallyClickhouseUrl = undefined;
  holder.tallyChdb = undefined;
  if (open) await (await open).close();
}

/** The settings of one insert: always a deduplication token, '' when the insert has none. */
export function insertSettings(token: string): ClickHouseSettings {
  return { ...EVERY_CALL, insert_deduplication_token: token, async_insert: 0 };
}

/** Rows of a query with `{name:Type}` parameters, as JSON objects (64-bit integers as strings). */
export async function selectRows<Row>(query: string, params: Record<string, unknown> = {}): Promise<Row[]> {
  const client = await clickhouse();
  const result = await client.query({ query, query_params: params, format: "JSONEachRow", clickhouse_settings: EVERY_CALL });
  return result.json<Row>();
}

/** A statement without rows (DDL, ALTER). */
export async function runCommand(query: string, params: Record<string, unknown> = {}): Promise<void> {
  const client = await clickhouse();
  await client.command({ query, query_params: params, clickhouse_settings: EVERY_CALL });
}

/** Inserts `rows` into `table` as one block with the deduplication token `token` ('' for none). */
export async function insertRows(table: string, rows: readonly object[], token: string): Promise<void> {
  if (rows.length === 0) return;
  const client = await clickhouse();
  await client.insert({ table, values: rows as object[], format: "JSONEachRow", clickhouse_settings: insertSettings(token) });
}

// TabSeparated escapes: a value's backslash, tab, newline and carriage return; null is \N.
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const tabSeparatedValue = (value: string | null) =>
  value === null ? "\\N" : NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;

/** `rows` (text or null per column, in `columns` order) as TabSeparated text. */
export function tabSeparated(rows: readonly (readonly (string | null)[])[]): string {
  let text = "";
  for (const row of rows) text += `${row.map(tabSeparatedValue).join("\t")}\n`;
  return text;
}

/**
 * Inserts `rows` (text or null per column of `columns`) into `table` as one block of
 * TabSeparated text, with the deduplication token `token` ('' for none).
 */
export async function insertTabSeparated(
  table: string,
  columns: readonly string[],
  rows: readonly (readonly (string | null)[])[],
  token: string,
): Promise<void> {
  if (rows.length === 0) return;
  await insertTabSeparatedText(table, columns, Buffer.from(tabSeparated(rows)), token);
}

/**
 * Inserts `text` (TabSeparated rows of `columns`, each ended by a line end) into `table` as one
 * block, with the deduplication token `token` ('' for none).
 */
export async function insertTabSeparatedText(table: string, columns: readonly string[], text: Buffer, token: string): Promise<void> {
  if (text.length === 0) return;
  const client = await clickhouse();
  const chdb = holder.tallyChdb;
  if (chdb) {
    await insertThroughFile(chdb, table, columns, text, token);
    return;
  }
  await client.insert({
    table,
    columns: columns as [string, ...string[]],
    values: Readable.from([text], { objectMode: false }),
    format: "TabSeparated",
    clickhouse_settings: insertSettings(token),
  });
}

/**
 * An insert through chdb: the rows written to a file in its data folder and read by `file()`,
 * with the insert's settings in the statement, so none stays on the session. chdb parses rows
 * handed over inline with a statement (its rawInsert, or the client's statement text) at a fraction
 * of the speed it reads the same bytes from a file (bench/clickhouse/insert-paths.ts; figures in
 * bench/results.md). ClickHouse's HTTP interface streams the request's body and needs none of this.
 */
async function insertThroughFile(
  chdb: NonNullable<typeof holder.tallyChdb>,
  table: string,
  columns: readonly string[],
  text: Buffer,
  token: string,
): Promise<void> {
  const folder = path.join(chdb.folder, INSERTS_FOLDER);
  const file = path.join(folder, `${randomUUID()}.tsv`);
  await mkdir(folder, { recursive: true });
  try {
    await writeFile(file, text);
    await chdb.connection.chdb.queryAsync(fileInsertStatement(table, columns, insertSettings(token), file));
  } catch (error) {
    // The same error the client gives (a ClickHouseError with the server's code), so callers tell a
    // refused row from a failing ClickHouse alike through either.
    throw parseError(error instanceof Error ? error.message : String(error));
  } finally {
    await rm(file, { force: true });
  }
}
