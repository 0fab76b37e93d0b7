// Hand-written SQL: the statement of an insert through chdb whose rows wait in a file (client.ts):
// the table's columns, the insert's settings in the statement (so none stays on chdb's session),
// and the file read by `file()` as TabSeparated. The table and columns are Tally's own names;
// setting values and the path are quoted as string literals.

/** A ClickHouse literal of a setting's value or a path: numbers as they are, anything else quoted. */
export const literal = (value: unknown): string => (typeof value === "number" ? String(value) : `'${String(value).replace(/[\\']/g, (c) => `\\${c}`)}'`);

export function fileInsertStatement(table: string, columns: readonly string[], settings: Record<string, unknown>, file: string): string {
  const settingList = Object.entries(settings)
    .map(([name, value]) => `${name} = ${literal(value)}`)
    .join(", ");
  return `INSERT INTO ${table} (${columns.join(", ")}) SETTINGS ${settingList} SELECT * FROM file(${literal(file)}, 'TabSeparated')`;
}
