// Shared by the files that check settling, without client.ts's side effects (it points the process
// at the shared stack's database, which the outage test must not).

/** A row when some accepted beacon or order is not settled yet. */
export const WAITING_SQL = `SELECT 1 FROM beacon_log l JOIN settle_cursors c USING (shard) WHERE (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq)
  UNION ALL SELECT 1 FROM conversion_log l JOIN conversion_cursor c ON (l.accepted_xid, l.seq) > (c.last_xid, c.last_seq) LIMIT 1`;
