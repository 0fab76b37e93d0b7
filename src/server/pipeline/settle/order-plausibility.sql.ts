// Hand-written SQL: the publishers' plausibility settings, read once per settle stretch
// (order-plausibility.ts).
import type pg from "pg";
import sql from "sql-template-tag";
import { prepared } from "@/server/db/prepared";

export const publisherTrustRows = (publisherIds: string[]): pg.QueryConfig =>
  prepared(
    "settle-publisher-trust",
    sql`SELECT id, credit_unverified_conversions, max_order_total_micros::text, max_line_quantity FROM accounts WHERE id = ANY(${publisherIds}::text[])`,
  );
