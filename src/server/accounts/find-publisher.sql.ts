// Hand-written SQL: a publisher with its sites in one round trip, on the accept paths.
import sql from "sql-template-tag";
import { pgPool } from "@/server/db/pg-pool";

export interface PublisherWithSites {
  id: string;
  network_id: string | null;
  /** Orders without proof are credited too (docs/conversions.md, "Verified orders"); off by default. */
  credit_unverified_conversions: boolean;
  /** Oldest first. */
  sites: { name: string; domain: string | null }[];
}

/** A publisher or network account with its sites; null for unknown ids and advertisers. */
export async function findPublisherWithSites(publisherId: string): Promise<PublisherWithSites | null> {
  const { rows } = await pgPool().query<PublisherWithSites>(
    sql`SELECT a.id, a.network_id, a.credit_unverified_conversions,
            coalesce((SELECT json_agg(json_build_object('name', s.name, 'domain', s.domain) ORDER BY s.created_at, s.name)
                        FROM sites s WHERE s.publisher_id = a.id), '[]') AS sites
       FROM accounts a
      WHERE a.id = ${publisherId} AND a.kind IN ('publisher', 'network')`,
  );
  return rows[0] ?? null;
}
