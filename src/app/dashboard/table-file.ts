"use client";
// A table of the dashboard as a CSV or XLSX file: the rows and columns shown are posted to
// POST /dashboard/table-file, which writes the file, and the answer is saved through an
// <a download> so the browser names it.

export type ColumnKind = "text" | "integer" | "number" | "money" | "percent" | "date" | "datetime";
export type CellValue = string | number | null;

/** The body of POST /dashboard/table-file. Values are raw: money in major units, percent as a fraction, days "YYYY-MM-DD". */
export interface TableFileBody {
  format: "csv" | "xlsx";
  /** The file's base name: /^[a-z0-9][a-z0-9_-]{0,79}$/. */
  name: string;
  /** The XLSX sheet's title, at most 31 characters. */
  sheet?: string;
  columns: { label: string; kind: ColumnKind; currency?: string }[];
  rows: CellValue[][];
  totals?: CellValue[];
}

/** Posts the table and saves the file; throws with the route's message when it refuses. */
export async function downloadTableFile(body: TableFileBody): Promise<void> {
  const answer = await fetch("/dashboard/table-file", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!answer.ok) {
    const problem = (await answer.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(problem?.error?.message ?? `the server answered ${answer.status}`);
  }
  const url = URL.createObjectURL(await answer.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = `${body.name}.${body.format}`;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download; the browser no longer needs the address after this turn.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** A file base name from free text: lower case, runs of other characters as one "-", at most 80. */
export function fileBaseName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^[-_]+|-+$/g, "")
    .slice(0, 80);
  return name || "table";
}
