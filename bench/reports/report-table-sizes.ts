// Rows and bytes of the report tables of one database, per zone where a table has zones (before
// them, none had): `npm run bench:reports:before-after` reads both checkouts' with it.
import type pg from "pg";
import { ZONE_TABLES } from "@/testing/zone-rows";

export interface TableSize {
  table: string;
  /** Rows per zone; "(no zones)" for a table without a zone column. */
  rows: Record<string, number>;
  /** pg_total_relation_size: heap, indexes and TOAST. */
  bytes: number;
}

/** Every report table the database has, with its rows and bytes. */
export async function reportTableSizes(pool: pg.Pool): Promise<TableSize[]> {
  const sizes: TableSize[] = [];
  for (const table of ZONE_TABLES) {
    const { rows: found } = await pool.query<{ exists: boolean; zoned: boolean }>(
      `SELECT to_regclass($1) IS NOT NULL AS exists,
              EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'zone') AS zoned`,
      [table],
    );
    if (!found[0]!.exists) continue;
    // Table names come from the fixed list above, never from input.
    const grouped = found[0]!.zoned
      ? `SELECT zone, count(*)::int AS rows FROM ${table} GROUP BY zone ORDER BY zone`
      : `SELECT '(no zones)' AS zone, count(*)::int AS rows FROM ${table}`;
    const { rows } = await pool.query<{ zone: string; rows: number }>(grouped);
    const { rows: size } = await pool.query<{ bytes: string }>("SELECT pg_total_relation_size($1::regclass) AS bytes", [table]);
    sizes.push({ table, rows: Object.fromEntries(rows.map((r) => [r.zone, r.rows])), bytes: Number(size[0]!.bytes) });
  }
  return sizes;
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
const total = (sizes: TableSize[]) => sizes.reduce((sum, s) => sum + Object.values(s.rows).reduce((a, b) => a + b, 0), 0);

/** Lines describing the sizes, one per table and one for all of them. */
export function describeSizes(label: string, sizes: TableSize[]): string[] {
  return [
    ...sizes.map(
      (s) =>
        `${label}: ${s.table}: ${Object.entries(s.rows)
          .map(([zone, rows]) => `${zone} ${rows.toLocaleString("en")}`)
          .join(", ")} rows; ${mib(s.bytes)}`,
    ),
    `${label}: every report table: ${total(sizes).toLocaleString("en")} rows; ${mib(sizes.reduce((sum, s) => sum + s.bytes, 0))}`,
  ];
}
