// Hand-written SQL: the savepoint a batch step runs each part of a batch in (isolate-failures.ts).
import sql from "sql-template-tag";

export const SAVEPOINT = sql`SAVEPOINT isolate`;
export const RELEASE_SAVEPOINT = sql`RELEASE SAVEPOINT isolate`;
export const ROLLBACK_TO_SAVEPOINT = sql`ROLLBACK TO SAVEPOINT isolate`;
