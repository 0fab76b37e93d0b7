"use client";
// The dashboard's tables (TanStack Table): headers that sort (buttons, so the keyboard sorts too),
// a column chooser, a totals row, and downloads of exactly the rows and columns shown, in the order
// shown. Sort and columns live in the address (`sort`, `cols`, with a prefix when a page has
// several tables). A wide table keeps its first columns in place while the rest scroll in their
// own box, and says when more columns lie to the right; rows may carry a box to select them.
import {
  type ColumnDef,
  type ColumnVisibilityState,
  columnVisibilityFeature,
  createSortedRowModel,
  type RowData,
  rowSortingFeature,
  type SortingState,
  type Row as TableRow,
  tableFeatures,
  type Updater,
  useTable,
} from "@tanstack/react-table";
import { type ReactNode, useMemo, useRef, useState } from "react";
import type { FigureFormat } from "@/server/store/metric-columns";
import { Problem } from "../problem";
import { type QueryLike, QueryState } from "../query-state";
import { formatFigure } from "./figures";
import { compareCells, type TableColumn, tableFileBody, tableTotals } from "./table-columns";
import { type CellValue, downloadTableFile } from "./table-file";
import { useSideScroll } from "./table-scroll";
import { type RowSelection, SelectRow, SelectShown } from "./table-selection";

export type { RowSelection };

import { useUrlState } from "./url-state";
import { columnsFromParam, type Sort, sortFromParam, sortToParam } from "./url-views";

const features = tableFeatures({ rowSortingFeature, columnVisibilityFeature, sortedRowModel: createSortedRowModel() });
/** A raw value as the table shows it: a column's figure format (metric columns), else its kind's (dashboard/figures.tsx). */
export function shownValue(value: CellValue, kind: TableColumn<unknown>["kind"] | FigureFormat, currency: string | null): string {
  if (value === null) return "—";
  if (typeof value === "string") return value;
  return formatFigure(
    value,
    kind === "integer" ? "count" : kind === "number" ? "units" : kind === "money" || kind === "percent" ? kind : (kind as FigureFormat),
    currency,
  );
}

export interface DataTableProps<Item> {
  caption: string;
  columns: TableColumn<Item>[];
  rows: Item[];
  rowKey: (row: Item) => string;
  /** The code beside money; null when the rows mix currencies. */
  currency: string | null;
  defaultSort: Sort;
  /** The downloaded file's base name (/^[a-z0-9][a-z0-9_-]{0,79}$/) and XLSX sheet title. */
  fileName: string;
  sheet: string;
  /** Before `sort` and `cols` in the address, for a page's second table. */
  urlPrefix?: string;
  /** Buttons at the end of each row, left out of the files. */
  actions?: (row: Item) => ReactNode;
  /** How many of the first columns shown stay in place while the others scroll sideways (1 unless told). */
  pinned?: number;
  /** A box on each row (and one for every row shown) to select them; pinned, left out of the files. */
  selection?: RowSelection<Item>;
  /**
   * Columns the files carry right after a shown one, which the table says inside that one's cell
   * (a bid's model beside its amount, so the file's amount stays a number).
   */
  besideInFiles?: { after: string; column: TableColumn<Item> }[];
}

/**
 * The table behind its query's states: loading and failure as <QueryState> says them, `empty`
 * when there are no rows (to show), else the table. `what` names the rows ("campaigns").
 */
export function QueryTable<Data, Item extends RowData>({
  query,
  what,
  empty,
  rowsOf,
  ...table
}: Omit<DataTableProps<Item>, "rows"> & { query: QueryLike<Data>; what: string; empty: ReactNode; rowsOf: (data: Data) => Item[] }) {
  return (
    <QueryState query={query} what={what} isEmpty={(data) => rowsOf(data).length === 0} empty={empty}>
      {(data) => <DataTable {...table} rows={rowsOf(data)} />}
    </QueryState>
  );
}

// Over 80 lines on purpose: one table's state, its chooser, downloads and markup read best together.
export function DataTable<Item extends RowData>({
  caption,
  columns,
  rows,
  rowKey,
  currency,
  defaultSort,
  fileName,
  sheet,
  urlPrefix = "",
  actions,
  pinned = 1,
  selection,
  besideInFiles = [],
}: DataTableProps<Item>) {
  const { params, set } = useUrlState();
  const ids = useMemo(() => columns.map((c) => c.id), [columns]);
  const byId = useMemo(() => new Map(columns.map((c) => [c.id, c])), [columns]);
  const sort = sortFromParam(params.get(`${urlPrefix}sort`), ids, defaultSort);
  const defaultShown = useMemo(() => columns.filter((c) => !c.hidden).map((c) => c.id), [columns]);
  const shown = columnsFromParam(params.get(`${urlPrefix}cols`), ids, defaultShown);
  const sorting: SortingState = [{ id: sort.id, desc: sort.descending }];
  const columnVisibility: ColumnVisibilityState = Object.fromEntries(ids.map((id) => [id, shown.includes(id)]));
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const scrollBox = useRef<HTMLDivElement>(null);
  const pinnedCells = pinned + (selection ? 1 : 0);
  const side = useSideScroll(scrollBox, pinnedCells);

  const definitions = useMemo<ColumnDef<typeof features, Item>[]>(
    () =>
      columns.map((c) => ({
        id: c.id,
        header: c.label,
        accessorFn: (row: Item) => c.value(row),
        sortFn: (a: TableRow<typeof features, Item>, b: TableRow<typeof features, Item>) => compareCells(c.value(a.original), c.value(b.original)),
        sortDescFirst: c.kind !== "text",
      })) as unknown as ColumnDef<typeof features, Item>[],
    [columns],
  );
  const table = useTable({
    features,
    columns: definitions,
    data: rows,
    getRowId: (row: Item) => rowKey(row),
    state: { sorting, columnVisibility },
    enableSortingRemoval: false,
    enableMultiSort: false,
    onSortingChange: (updater: Updater<SortingState>) => {
      const next = typeof updater === "function" ? updater(sorting) : updater;
      const first = next[0];
      if (first) set({ [`${urlPrefix}sort`]: sortToParam({ id: first.id, descending: first.desc }) });
    },
    onColumnVisibilityChange: (updater: Updater<ColumnVisibilityState>) => {
      const next = typeof updater === "function" ? updater(columnVisibility) : updater;
      const chosen = ids.filter((id) => next[id]);
      if (chosen.length > 0) set({ [`${urlPrefix}cols`]: chosen.join(",") });
    },
  });
  const sortedRows = table.getRowModel().rows.map((row: TableRow<typeof features, Item>) => row.original);
  const visible = table.getVisibleLeafColumns().map((column) => byId.get(column.id)!);
  const totals = tableTotals(columns, sortedRows);
  // One row is its own total: a totals row under it would only repeat it.
  const hasTotals = visible.some((c) => c.total !== undefined) && sortedRows.length > 1;

  const download = async (format: "csv" | "xlsx") => {
    setProblem(null);
    setBusy(true);
    try {
      const shownInFile = visible.flatMap((c) => [c.id, ...besideInFiles.filter((b) => b.after === c.id).map((b) => b.column.id)]);
      const fileColumns = [...columns, ...besideInFiles.map((b) => b.column)];
      await downloadTableFile(
        tableFileBody(format, { name: fileName, sheet, columns: fileColumns, shown: shownInFile, rows: sortedRows, currency, withTotals: hasTotals }),
      );
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  // A cell's place among the pinned ones (the selection box first): sticky at the widths before it.
  const pin = (index: number, base?: string) =>
    index < pinnedCells
      ? { className: [base, "pinned", index === pinnedCells - 1 ? "pinned-edge" : ""].filter(Boolean).join(" "), style: { left: side.lefts[index] ?? 0 } }
      : { className: base };
  const first = selection ? 1 : 0;

  return (
    <div className="data-table">
      <div className="toolbar table-tools">
        <details className="column-chooser">
          <summary>Columns</summary>
          <fieldset>
            <legend className="visually-hidden">Columns of {caption}</legend>
            {table.getAllLeafColumns().map((column) => (
              <label key={column.id}>
                <input
                  type="checkbox"
                  checked={column.getIsVisible()}
                  disabled={column.getIsVisible() && visible.length === 1}
                  onChange={(e) => column.toggleVisibility(e.target.checked)}
                />
                {byId.get(column.id)?.label}
              </label>
            ))}
          </fieldset>
        </details>
        <button type="button" className="chip" disabled={busy || sortedRows.length === 0} onClick={() => void download("csv")}>
          Download CSV
        </button>
        <button type="button" className="chip" disabled={busy || sortedRows.length === 0} onClick={() => void download("xlsx")}>
          Download XLSX
        </button>
        {side.more ? (
          <button type="button" className="chip scroll-hint" onClick={side.scrollOn}>
            More columns →
          </button>
        ) : null}
      </div>
      <Problem about="The file could not be made" message={problem} />
      <div className={`table-frame${side.more ? " more" : ""}${side.scrolled ? " scrolled" : ""}`}>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take focus to scroll from the keyboard */}
        {/* biome-ignore lint/a11y/useSemanticElements: a group, not a fieldset of form controls, nor a landmark per table */}
        <div className="table-scroll" ref={scrollBox} tabIndex={0} role="group" aria-label={`${caption}, scrolls sideways`}>
          <table className="data">
            <caption className="visually-hidden">{caption}</caption>
            <thead>
              <tr>
                {selection ? (
                  <th scope="col" {...pin(0, "select-cell")}>
                    <SelectShown selection={selection} keys={sortedRows.map(rowKey)} />
                  </th>
                ) : null}
                {(table.getHeaderGroups()[0]?.headers ?? []).map((header, i) => {
                  const direction = header.column.getIsSorted();
                  return (
                    <th
                      key={header.id}
                      scope="col"
                      aria-sort={direction === "asc" ? "ascending" : direction === "desc" ? "descending" : undefined}
                      {...pin(first + i)}
                    >
                      <button type="button" className="link-button sort-button" onClick={header.column.getToggleSortingHandler()}>
                        {byId.get(header.column.id)?.label}
                        <span aria-hidden="true" className="sort-arrow">
                          {direction === "asc" ? " ▲" : direction === "desc" ? " ▼" : ""}
                        </span>
                      </button>
                    </th>
                  );
                })}
                {actions ? (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {sortedRows.map((row) => (
                <tr key={rowKey(row)}>
                  {selection ? (
                    <td {...pin(0, "select-cell")}>
                      <SelectRow selection={selection} row={row} rowKey={rowKey(row)} />
                    </td>
                  ) : null}
                  {visible.map((c, i) => (
                    <td key={c.id} {...pin(first + i, c.kind === "text" ? undefined : "number")}>
                      {c.cell ? c.cell(row) : shownValue(c.value(row), c.format ?? c.kind, currency)}
                    </td>
                  ))}
                  {actions ? <td className="row-buttons">{actions(row)}</td> : null}
                </tr>
              ))}
            </tbody>
            {hasTotals ? (
              <tfoot>
                <tr className="totals">
                  {selection ? <td {...pin(0)} /> : null}
                  {visible.map((c, i) => (
                    <td key={c.id} {...pin(first + i, c.kind === "text" ? undefined : "number")}>
                      {i === 0 && c.total === undefined
                        ? "Total"
                        : c.total === undefined
                          ? ""
                          : shownValue(totals.get(c.id) ?? null, c.format ?? c.kind, currency)}
                    </td>
                  ))}
                  {actions ? <td /> : null}
                </tr>
              </tfoot>
            ) : null}
          </table>
        </div>
      </div>
    </div>
  );
}
