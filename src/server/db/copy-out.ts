// `COPY (SELECT ...) TO STDOUT` through a pooled connection: the rows as Postgres's text format
// (tab-separated, `\N` for null, backslash escapes), gathered into one buffer without a JS value per
// field. For reads of many rows handed on as text (the ClickHouse shipper): against rows parsed
// into arrays and written out again, far less work for the process and its garbage collector.
import type pg from "pg";
import type { Sql } from "sql-template-tag";
import { pgPool } from "./pg-pool";

interface CopyConnection {
  query(text: string): void;
}

/** pg's extension point for a statement it does not run itself (what pg-copy-streams builds on). */
class CopyToBuffer implements pg.Submittable {
  length = 0;
  private failed = false;

  constructor(
    private readonly text: string,
    public buffer: Buffer,
    private readonly settle: (error: Error | null) => void,
  ) {}

  submit(connection: unknown): void {
    (connection as CopyConnection).query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    // The chunk is a view of the connection's read buffer, which it reuses: copied at once.
    const { chunk } = message;
    if (this.length + chunk.length > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + chunk.length));
      grown.set(this.buffer.subarray(0, this.length));
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.length);
    this.length += chunk.length;
  }

  handleError(error: Error): void {
    // pg hands the ReadyForQuery that ends a failed statement to no one: settled here.
    this.failed = true;
    this.settle(error);
  }

  handleReadyForQuery(): void {
    if (!this.failed) this.settle(null);
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
}

// The buffer rows are gathered in, kept from one read to the next while no read uses it: a fresh
// one of tens of megabytes costs a page fault for every 4 KiB of it, more than all the copying.
const SCRATCH_LIMIT = 64 << 20;
let scratch: Buffer | null = null;

/**
 * Runs `statement` (a COPY ... TO STDOUT without parameters) and hands what it wrote to `use`.
 * The text is a view of a buffer the next read reuses once `use`'s promise settles: `use` must be
 * done with it by then.
 */
export async function withCopyOut<T>(statement: Sql, use: (text: Buffer) => Promise<T>): Promise<T> {
  if (statement.values.length > 0) throw new Error("COPY takes no parameters: its values go through sql-literals.ts");
  const client = await pgPool().connect();
  let copy: CopyToBuffer | undefined;
  try {
    try {
      await new Promise<void>((resolve, reject) => {
        copy = new CopyToBuffer(statement.text, scratch ?? Buffer.allocUnsafe(1 << 20), (error) => (error ? reject(error) : resolve()));
        scratch = null;
        client.query(copy);
      });
      client.release();
    } catch (error) {
      // A connection that broke mid-COPY (not a statement Postgres refused) is not handed on.
      client.release(error instanceof Error && "code" in error ? undefined : new Error("COPY broke off"));
      throw error;
    }
    return await use(copy!.buffer.subarray(0, copy!.length));
  } finally {
    if (copy && copy.buffer.length <= SCRATCH_LIMIT) scratch = copy.buffer;
  }
}
