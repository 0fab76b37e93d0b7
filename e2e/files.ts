// Files the browser downloaded, read by readers Tally did not write.
import { DuckDBInstance } from "@duckdb/node-api";

/** A CSV file as DuckDB reads it: every line in file order, every field as text, "" for empty. */
export async function readCsv(file: string): Promise<string[][]> {
  const connection = await (await DuckDBInstance.create(":memory:")).connect();
  const rows = await connection.runAndReadAll(`SELECT * FROM read_csv('${file}', header = false, all_varchar = true, quote = '"', escape = '"')`);
  return rows.getRowObjectsJS().map((row) => Object.values(row).map((cell) => (cell === null ? "" : String(cell))));
}
