// What settling set aside because of the item's own data (settle_set_aside), for operators:
// `npm run rollups:verify` lists it beside what attribution and exports set aside.
import { pgPool } from "@/server/db/pg-pool";

export interface SetAsideEvent {
  event_id: string;
  kind: "beacon" | "conversion";
  received_at: Date;
  reason: string;
  sqlstate: string | null;
}

/** How many beacons and orders were set aside among those received in [from, to] (UTC days), and the latest `limit`. */
export async function setAsideEvents(range: { startDate: string; endDate: string }, limit = 100): Promise<{ total: number; latest: SetAsideEvent[] }> {
  const values = [range.startDate, range.endDate];
  const where = "received_at >= $1::date AND received_at < $2::date + 1";
  const { rows: counted } = await pgPool().query<{ n: number }>(`SELECT count(*)::int AS n FROM settle_set_aside WHERE ${where}`, values);
  const { rows } = await pgPool().query<SetAsideEvent>(
    `SELECT event_id::text, kind, received_at, reason, sqlstate FROM settle_set_aside WHERE ${where} ORDER BY set_aside_at DESC LIMIT $3`,
    [...values, limit],
  );
  return { total: counted[0]!.n, latest: rows };
}
