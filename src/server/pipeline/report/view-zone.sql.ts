// Hand-written SQL: the zones a dashboard view reads in (view-zone.ts).
import sql, { type Sql } from "sql-template-tag";

/** The zone of a campaign's advertiser, with the advertiser's id (whose campaign it is). */
export const campaignZoneQuery = (campaignId: string): Sql =>
  sql`SELECT a.id AS advertiser_id, a.time_zone FROM campaigns c JOIN accounts a ON a.id = c.advertiser_id WHERE c.id = ${campaignId}`;
