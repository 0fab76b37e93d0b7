// Hand-written SQL: the settle step of accepted orders (src/server/pipeline/settle/settle-conversions.ts).
// A stretch of orders is one statement (two inserts fed by one JSON parameter), where the ORM
// would take a round trip per row.
import type pg from "pg";
import sql, { type Sql } from "sql-template-tag";
import { prepared } from "@/server/db/prepared";
import type { ConversionToStore } from "@/server/store/conversion-rows";

// Settling has nothing left to decide: the receipt was taken when the order was accepted
// (append-conversions.sql.ts). ON CONFLICT makes a stretch settled twice (a worker that died after
// its commit reached Postgres but before it knew) store nothing twice.
const storeSql = (batch: ConversionToStore[]): Sql => sql`
INSERT INTO conversions (event_id, publisher_id, order_id, user_id, session_id, channel, site, placed_at, gender, uf,
                         city, is_company, email_hashed, phone_hashed, social_id_hashed, first_name_hashed,
                         last_name_hashed, received_at, items, line_count, verified_by, credited)
SELECT event_id, publisher_id, order_id, user_id, session_id, channel, site, placed_at, gender, uf,
       city, is_company, email_hashed, phone_hashed, social_id_hashed, first_name_hashed,
       last_name_hashed, received_at, items, jsonb_array_length(items), verified_by, credited
  FROM json_to_recordset(${JSON.stringify(batch)}::json)
       AS t(event_id uuid, publisher_id text, order_id text, user_id text, session_id text, channel text, site text,
            placed_at timestamptz, gender text, uf text, city text, is_company boolean, email_hashed text,
            phone_hashed text, social_id_hashed text, first_name_hashed text, last_name_hashed text,
            received_at timestamptz, items jsonb, verified_by text, credited boolean)
ON CONFLICT (event_id, received_at) DO NOTHING`;

/** Stores a stretch of accepted orders with their items on `client`, inside the settle transaction. */
export async function storeConversions(client: pg.PoolClient, batch: ConversionToStore[]): Promise<void> {
  await client.query(prepared("tally_store_conversions", storeSql(batch)));
}
