"use client";
// Selecting a table's rows (DataTable's `selection`): a box on each row, and one in the header for
// every row shown. The keys are the table's row keys; what the selection is for is the page's.

export interface RowSelection<Item> {
  /** The keys (rowKey) of the rows selected. */
  selected: ReadonlySet<string>;
  onChange: (selected: Set<string>) => void;
  /** The row's name for its box's label ("Select <name>"). */
  label: (row: Item) => string;
}

/** `selected` with `keys` added (on) or taken out (off). */
export const toggled = (selected: ReadonlySet<string>, keys: string[], on: boolean) => {
  const next = new Set(selected);
  for (const key of keys) {
    if (on) next.add(key);
    else next.delete(key);
  }
  return next;
};

/** The header's box: selects every row shown, or none; half-checked when some are. */
export function SelectShown<Item>({ selection, keys }: { selection: RowSelection<Item>; keys: string[] }) {
  const count = keys.filter((key) => selection.selected.has(key)).length;
  return (
    <input
      type="checkbox"
      aria-label={`Select all ${keys.length} shown`}
      checked={keys.length > 0 && count === keys.length}
      ref={(box) => {
        if (box) box.indeterminate = count > 0 && count < keys.length;
      }}
      onChange={(e) => selection.onChange(toggled(selection.selected, keys, e.target.checked))}
    />
  );
}

/** A row's box, labelled with the row's name. */
export function SelectRow<Item>({ selection, row, rowKey }: { selection: RowSelection<Item>; row: Item; rowKey: string }) {
  return (
    <input
      type="checkbox"
      aria-label={`Select ${selection.label(row)}`}
      checked={selection.selected.has(rowKey)}
      onChange={(e) => selection.onChange(toggled(selection.selected, [rowKey], e.target.checked))}
    />
  );
}
