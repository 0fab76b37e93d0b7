// Hand-written SQL: an access token, its client and account in one round trip on every report request made with a token.
import sql from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";

export interface AccessTokenRow {
  client_id: string;
  account_id: string;
  account_kind: "publisher" | "advertiser" | "network";
  scopes: string[];
  expires_at: Date;
  client_revoked_at: Date | null;
}

/** The token stored under `tokenHash` (one probe of its primary key) with its client and account; null when there is none. */
export async function findAccessToken(tokenHash: string): Promise<AccessTokenRow | null> {
  const { rows } = await pgPool().query<AccessTokenRow>(
    sql`SELECT c.id AS client_id, a.id AS account_id, a.kind::text AS account_kind, t.scopes, t.expires_at, c.revoked_at AS client_revoked_at
          FROM oauth_access_tokens t
          JOIN oauth_clients c ON c.id = t.client_id
          JOIN accounts a ON a.id = c.account_id
         WHERE t.token_hash = ${tokenHash}`,
  );
  return rows[0] ?? null;
}
