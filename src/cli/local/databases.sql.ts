// Hand-written SQL of the local and test Postgres (embedded-postgres.ts): creating and dropping
// databases. CREATE and DROP DATABASE take no parameter for a name, so names go into the text
// only through identifier() (lower-case letters, digits and underscores: tally, tally_test_<hex>...).
import sql, { empty, type Sql } from "sql-template-tag";
import { identifier } from "@/server/db/sql-literals";

export const databaseExists = (database: string): Sql => sql`SELECT 1 FROM pg_database WHERE datname = ${database}`;

export const createDatabase = (database: string, template?: string): Sql =>
  sql`CREATE DATABASE ${identifier(database)}${template ? sql` TEMPLATE ${identifier(template)}` : empty}`;

export const dropDatabaseIfExists = (database: string): Sql => sql`DROP DATABASE IF EXISTS ${identifier(database)} WITH (FORCE)`;
