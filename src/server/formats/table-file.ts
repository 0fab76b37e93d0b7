// A dashboard table as a file (POST /dashboard/table-file, docs/reports.md "Table files"): the
// table the page shows, sent with raw values, written as CSV (the values as sent, for programs)
// or XLSX (headers in bold, a format per column kind, a bold totals row, for people).
import { z } from "zod";
import { TallyError } from "@/server/core/errors";
import { csvWriter } from "./csv";
import { tableStream } from "./table-writer";
import { type XlsxColumn, xlsxWriter } from "./xlsx";
import { CURRENCY_CODE, XLSX_KINDS } from "./xlsx-styles";

export const TABLE_FILE_MAX_BYTES = 8 * 1024 * 1024;
export const TABLE_FILE_MAX_ROWS = 100_000;
export const TABLE_FILE_MAX_COLUMNS = 80;

const ZCell = z.union([z.string(), z.number(), z.null()]);
type Cell = z.infer<typeof ZCell>;

const cellProblem = (value: unknown): string | null =>
  value === null || typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) ? null : "must be a string, a number or null";

export const ZTableFileBody = z
  .object({
    format: z.enum(["csv", "xlsx"]),
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,79}$/, "must be 1 to 80 of a-z, 0-9, _ and -, starting with a letter or digit"),
    sheet: z.string().min(1).max(31).optional(),
    columns: z
      .array(
        z.object({
          label: z.string().max(200),
          kind: z.enum(XLSX_KINDS),
          currency: z.string().regex(CURRENCY_CODE, "must be an ISO 4217 code such as USD").optional(),
        }),
      )
      .min(1)
      .max(TABLE_FILE_MAX_COLUMNS),
    // Cells are checked in one loop below: a schema per cell costs seconds on 100,000 rows.
    rows: z.array(z.array(z.unknown())).max(TABLE_FILE_MAX_ROWS),
    totals: z.array(z.unknown()).optional(),
  })
  .superRefine((body, context) => {
    const width = body.columns.length;
    const check = (row: unknown[], path: (string | number)[]) => {
      if (row.length !== width) {
        context.addIssue({ code: "custom", path, message: `has ${row.length} values, but there are ${width} columns` });
        return false;
      }
      for (let c = 0; c < row.length; c += 1) {
        const problem = cellProblem(row[c]);
        if (problem) {
          context.addIssue({ code: "custom", path: [...path, c], message: problem });
          return false;
        }
      }
      return true;
    };
    for (let r = 0; r < body.rows.length; r += 1) if (!check(body.rows[r]!, ["rows", r])) return;
    if (body.totals) check(body.totals, ["totals"]);
  });

export type TableFileBody = Omit<z.infer<typeof ZTableFileBody>, "rows" | "totals"> & { rows: Cell[][]; totals?: Cell[] };

/** The body, or 400 naming the first field at fault. */
export function parseTableFileBody(input: unknown): TableFileBody {
  const parsed = ZTableFileBody.safeParse(input);
  if (parsed.success) return parsed.data as TableFileBody;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? issue.path.map((part, i) => (typeof part === "number" ? `[${part}]` : `${i ? "." : ""}${String(part)}`)).join("") : "body";
  throw new TallyError("bad_request", `${where} ${issue.message}`);
}

const CONTENT_TYPES = {
  csv: "text/csv; charset=utf-8",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
} as const;

/** Rows handed to the writer at a time: the bytes go out as they are made. */
const BATCH = 2000;

async function* batchesOf(rows: Cell[][]): AsyncGenerator<Cell[][]> {
  for (let at = 0; at < rows.length; at += BATCH) yield rows.slice(at, at + BATCH);
}

/** The file of a table: its bytes as a stream, and the headers of its answer. */
export function tableFile(body: TableFileBody): { stream: ReadableStream<Uint8Array>; headers: Record<string, string> } {
  const headers = {
    "Content-Type": CONTENT_TYPES[body.format],
    "Content-Disposition": `attachment; filename="${body.name}.${body.format}"`,
    "Cache-Control": "private, no-store",
  };
  if (body.format === "csv") {
    const rows = body.totals ? [...body.rows, body.totals] : body.rows;
    return {
      stream: tableStream<Cell[]>(
        (sink) =>
          csvWriter(
            body.columns.map((c) => c.label),
            sink,
          ),
        batchesOf(rows),
      ),
      headers,
    };
  }
  const columns: XlsxColumn<Cell[]>[] = body.columns.map((column, index) => ({
    header: column.label,
    key: index,
    kind: column.kind,
    currency: column.currency,
  }));
  const totals = body.totals ?? null;
  return {
    stream: tableStream<Cell[]>((sink) => xlsxWriter(body.sheet ?? body.name, columns, sink, { totals: () => totals }), batchesOf(body.rows)),
    headers,
  };
}
