// Reading a ClickHouse result a page at a time, for reads too large to hold (an export batch, the
// backfill's comparisons): rows as arrays in the SELECT's column order, streamed from the server
// (chdb buffers a result whole, which the tests' small batches do not mind).
import type { ClickHouseSettings } from "@clickhouse/client";
import { clickhouse } from "./client";

// What client.ts sends with every call, sent here too: through chdb a call's settings stay on the
// session for the calls after it, so each call states the ones it relies on (times as ISO text,
// no deduplication token left over from an insert).
const READ_SETTINGS: ClickHouseSettings = { insert_deduplication_token: "", date_time_output_format: "iso", output_format_json_quote_64bit_integers: 1 };

/** The rows of a query with `{name:Type}` parameters, `pageRows` at a time; leaving early (return()) closes the read. */
export async function* streamPages(query: string, params: Record<string, unknown>, pageRows: number): AsyncGenerator<unknown[][]> {
  const client = await clickhouse();
  const result = await client.query({ query, query_params: params, format: "JSONCompactEachRow", clickhouse_settings: READ_SETTINGS });
  let page: unknown[][] = [];
  try {
    for await (const rows of result.stream<unknown[]>()) {
      for (const row of rows) {
        page.push(row.json());
        if (page.length === pageRows) {
          yield page;
          page = [];
        }
      }
    }
    if (page.length > 0) yield page;
  } finally {
    result.close();
  }
}
