import pg from "pg";

/** Tables, columns, enums, indexes and constraints of the public schema, as comparable text. */
export async function catalogSnapshot(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const queries = [
      `SELECT 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || udt_name || ' null=' || is_nullable || ' default=' || coalesce(column_default, '')
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
      `SELECT 'enum ' || t.typname || ' ' || string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
         FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid GROUP BY t.typname`,
      `SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`,
      `SELECT 'constraint ' || c.conrelid::regclass::text || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE n.nspname = 'public' AND c.conrelid::regclass::text <> '_prisma_migrations'
          AND c.contype <> 'n'`, // PostgreSQL 18 also lists NOT NULL here; columns already say it
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
