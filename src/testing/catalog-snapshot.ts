import pg from "pg";

// Partitions (a day of ad_events, the default partition of a log) are made by migrations and upkeep,
// not by the data model: the snapshot compares the tables, and an index of a partitioned table
// ("ON ONLY") reads like the same index of a plain one. partitionedTables says which are partitioned.
const NOT_A_PARTITION = "NOT EXISTS (SELECT 1 FROM pg_class p WHERE p.relname::text = {table}::text AND p.relispartition)";
const notAPartition = (table: string) => NOT_A_PARTITION.replace("{table}", table);

/** Tables, columns, enums, indexes, constraints and unlogged relations of the public schema, as comparable text. */
export async function catalogSnapshot(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const queries = [
      `SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || udt_name || ' null=' || is_nullable || ' default=' || coalesce(column_default, '')
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' AND ${notAPartition("table_name")}`,
      `SELECT 'enum ' || t.typname || ' ' || string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
         FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid GROUP BY t.typname`,
      `SELECT 'index ' || replace(indexdef, ' ON ONLY ', ' ON ') FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' AND ${notAPartition("tablename")}`,
      `SELECT 'constraint ' || c.conrelid::regclass::text || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE n.nspname = 'public' AND c.conrelid::regclass::text <> '_prisma_migrations' AND NOT c.conrelid IN (SELECT oid FROM pg_class WHERE relispartition)
          AND c.contype <> 'n'`, // PostgreSQL 18 also lists NOT NULL here; columns already say it
      `SELECT 'unlogged ' || c.relname FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relpersistence = 'u'`,
    ];
    const lines: string[] = [];
    for (const sql of queries) {
      const result = await client.query<{ "?column?": string }>(sql);
      lines.push(...result.rows.map((row) => Object.values(row)[0] as string));
    }
    return lines.sort();
  } finally {
    await client.end();
  }
}

/** The partitioned tables of the public schema with their partition keys, as `table: RANGE (column)`. */
export async function partitionedTables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ line: string }>(
      `SELECT c.relname || ': ' || pg_get_partkeydef(c.oid) AS line FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid ORDER BY 1`,
    );
    return rows.map((row) => row.line);
  } finally {
    await client.end();
  }
}
