// Files the browser downloaded, read by readers Tally did not write, and the tables they came from.
import { DuckDBInstance } from "@duckdb/node-api";
import type { Locator } from "@playwright/test";

/** A CSV file as DuckDB reads it: every line in file order, every field as text, "" for empty. */
export async function readCsv(file: string): Promise<string[][]> {
  const connection = await (await DuckDBInstance.create(":memory:")).connect();
  const rows = await connection.runAndReadAll(`SELECT * FROM read_csv('${file}', header = false, all_varchar = true, quote = '"', escape = '"')`);
  return rows.getRowObjectsJS().map((row) => Object.values(row).map((cell) => (cell === null ? "" : String(cell))));
}

/** What a dashboard table shows: its column labels and each body row's cells, as text (a row's selection box is no cell of its own). */
export async function shownTable(table: Locator): Promise<{ labels: string[]; rows: string[][] }> {
  const labels = (await table.locator("thead th button").allTextContents()).map((label) => label.replace(/[▲▼]/g, "").trim());
  const rows = await table
    .locator("tbody tr")
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td:not(.select-cell)")].map((td) => td.textContent?.trim() ?? "")));
  return { labels, rows: rows.map((cells) => cells.slice(0, labels.length)) };
}
