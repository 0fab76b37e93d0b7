// The one shape of Tally's file writers (Parquet and CSV for the export, XLSX for the report
// downloads): a file of fixed columns, rows handed over in batches as a cursor reads them, bytes
// handed on as soon as they are ready. No writer holds more than the batch it is given and what
// its format must keep back (a Parquet row group), so a file of any length streams.

/** Where a writer's bytes go, in file order; the writer waits for each chunk before the next. */
export type ByteSink = (chunk: Uint8Array) => void | Promise<void>;

export interface TableWriter<Row> {
  /** Encodes a batch of rows (cells in column order, or records keyed by column) and hands their bytes to the sink. */
  write(rows: readonly Row[]): Promise<void>;
  /** Ends the file: a file without rows is still whole (a CSV header, an empty sheet, a Parquet footer). */
  close(): Promise<void>;
}

/**
 * A file as a web stream for a Response body: batches of `rows` are written as the client reads,
 * so rows are read only as fast as the client takes the file. A failing source (or writer) errors
 * the stream, so a client never keeps a file that looks complete; a client that goes away stops
 * the source (return()).
 */
export function tableStream<Row>(open: (sink: ByteSink) => TableWriter<Row>, rows: AsyncIterable<readonly Row[]>): ReadableStream<Uint8Array> {
  const source = rows[Symbol.asyncIterator]();
  let writer: TableWriter<Row>;
  let produced = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        writer = open((chunk) => {
          produced = true;
          controller.enqueue(chunk);
        });
      },
      // A pull that enqueues nothing is not called again, so batches are written until some bytes
      // come out (a writer may hold a batch back: deflate waits for a window's worth).
      async pull(controller) {
        produced = false;
        try {
          while (!produced) {
            const next = await source.next();
            if (next.done) {
              await writer.close();
              controller.close();
              return;
            }
            await writer.write(next.value);
          }
        } catch (error) {
          // A writer that refuses (a limit of its format) must still end the query behind the rows.
          await source.return?.()?.catch(() => {});
          throw error;
        }
      },
      async cancel() {
        await source.return?.();
      },
    },
    // Nothing queued ahead of the reader: the next batch is read only when the client asks.
    { highWaterMark: 0 },
  );
}
