// Hand-written SQL of an account's time zone (account-time-zone.ts): the account's row locked
// while it changes, and the zones the report tables are kept in (report_zones), added under an
// advisory lock so two accounts choosing new zones at once cannot both pass the cap; Prisma has
// no advisory locks.
import type { Prisma } from "@/server/db/generated/client";

type Tx = Prisma.TransactionClient;

/** The account's name and zone, its row locked until the transaction ends, so two changes take turns and each logs what the other left. */
export async function lockAccountZone(tx: Tx, accountId: string): Promise<{ name: string; time_zone: string }[]> {
  return tx.$queryRaw`SELECT name, time_zone FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
}

export interface KeptZone {
  zone: string;
  /** The first moment the zone's daily rows hold (a UTC midnight). */
  since: Date;
  /** The first moment its hourly rows hold (a whole UTC hour). */
  hours_since: Date;
  /** Whether this call added the zone. */
  added: boolean;
}

/**
 * Keeps `zone` in report_zones: its row as it is when already kept, else a new one starting at the
 * next UTC midnight (hours: the next whole UTC hour) after now, unless `max` zones are kept
 * already (null: no cap). No row when the cap refused it.
 *
 * Why the start is in the future: a zone's rows must hold every event from its start on, and a
 * batch (settling, attribution) that began before this transaction commits read report_zones
 * without this zone, so it adds nothing to it; the events and orders such a batch holds had
 * arrived before it began, so before the start. Only a commit that crosses the boundary itself
 * (begun milliseconds before it) could miss some. A zone already kept keeps its start (ON CONFLICT DO NOTHING): upkeep may have moved it back.
 */
export async function keepReportZone(tx: Tx, zone: string, max: number | null): Promise<KeptZone[]> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended('report_zones', 0))`;
  return tx.$queryRaw`
    WITH kept AS (SELECT zone, since, hours_since FROM report_zones WHERE zone = ${zone}),
    added AS (
      INSERT INTO report_zones (zone, since, hours_since)
      SELECT ${zone}, date_trunc('day', clock_timestamp(), 'UTC') + interval '1 day', date_trunc('hour', clock_timestamp(), 'UTC') + interval '1 hour'
       WHERE NOT EXISTS (SELECT 1 FROM kept)
         AND (${max}::int IS NULL OR (SELECT count(*) FROM report_zones) < ${max}::int)
      ON CONFLICT (zone) DO NOTHING
      RETURNING zone, since, hours_since
    )
    SELECT zone, since, hours_since, true AS added FROM added
    UNION ALL
    SELECT zone, since, hours_since, false FROM kept`;
}

/**
 * Whether Postgres's own tz database knows `zone`: the writers compute every kept zone's local
 * days in Postgres, so a name only the runtime knows would make every batch fail.
 */
export async function databaseKnowsZone(tx: Tx, zone: string): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ known: boolean }[]>`SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = ${zone}) AS known`;
  return row?.known === true;
}

/** How many zones the report tables are kept in, UTC included (the tally_report_zones gauge). */
export async function countReportZones(tx: Tx): Promise<number> {
  const [row] = await tx.$queryRaw<{ zones: number }[]>`SELECT count(*)::int AS zones FROM report_zones`;
  return row?.zones ?? 0;
}
