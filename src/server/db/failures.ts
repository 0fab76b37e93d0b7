// What a failure says about whose fault it is: the item's (its data, or its size or cost), or the
// database's and the process's (a lost connection, a shutdown, a lock race, a schema that does not
// match the code). Every batch in the pipeline asks this one question: an item's failure is
// isolated by halving its batch until the item stands alone and is set aside, so the rest goes
// through; any other failure is thrown, and the same work is tried again later, unchanged,
// because setting aside good items while the database is down would lose them.

/** SQLSTATE class 22 (data exception) or 23 (integrity constraint violation): the data is at fault. */
export function isDataError(error: unknown): boolean {
  const code = sqlstateOf(error);
  return code !== null && (code.startsWith("22") || code.startsWith("23"));
}

/** The five-character SQLSTATE of a Postgres error, or null for any other error (Node's system errors, EPIPE among them, are not SQLSTATEs: no class starts with E). */
export function sqlstateOf(error: unknown): string | null {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[0-9A-DF-Z][0-9A-Z]{4}$/.test(code) ? code : null;
}

// Classes and codes that say nothing about the item: 08 connection exception, 40 transaction
// rollback (serialisation failure, deadlock), 53 insufficient resources (but 53200 out of memory,
// which a batch too large causes), 57 operator intervention (shutdowns; but 57014, the statement
// timeout an item too costly causes), 58 system errors, 55P03 lock not available, 55006 object in
// use, 25P03 an idle transaction ended by the server, and 42, 0A, 3F, 3D (a statement the schema
// does not match, as during a deploy: every item would fail the same way).
const NOT_THE_ITEM_CLASSES = new Set(["08", "40", "53", "57", "58", "42", "0A", "3F", "3D"]);
const NOT_THE_ITEM_CODES = new Set(["55P03", "55006", "25P03"]);
const THE_ITEM_CODES = new Set(["53200", "57014"]);
// What node-postgres says when a connection is gone or cannot be had; these errors carry no SQLSTATE.
const CONNECTION_MESSAGES = [
  "Connection terminated",
  "connection error",
  "not queryable",
  "timeout exceeded when trying to connect",
  "Client was closed",
  "Cannot use a pool after calling end",
];

/**
 * Whether a failure is the database's or the process's rather than the item's: a lost or refused
 * connection (Node's E* system errors, node-postgres's own messages), or a SQLSTATE that says so.
 * Such failures are thrown and the work is tried again later; everything else (a data error, a
 * statement timeout, out of memory, a RangeError or any other error thrown while handling the
 * items) is the items' fault, and a batch isolates it.
 */
export function isTransientFailure(error: unknown): boolean {
  if (isUnknownZoneError(error)) return true;
  const sqlstate = sqlstateOf(error);
  if (sqlstate !== null) {
    if (THE_ITEM_CODES.has(sqlstate)) return false;
    return NOT_THE_ITEM_CODES.has(sqlstate) || NOT_THE_ITEM_CLASSES.has(sqlstate.slice(0, 2));
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) return true;
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" && CONNECTION_MESSAGES.some((text) => message.includes(text));
}

/**
 * A statement that converted a time into a zone Postgres's tz database does not know (22023,
 * `time zone "…" not recognized`): a kept report zone a later Postgres dropped or renamed
 * (store/unknown-zones.sql.ts). Every item would fail the same way, so it is not the item's.
 */
export function isUnknownZoneError(error: unknown): boolean {
  const message = (error as { message?: unknown } | undefined)?.message;
  return sqlstateOf(error) === "22023" && typeof message === "string" && /^time zone ".*" not recognized$/.test(message);
}

/** A reason to store beside a set-aside item: its message (and SQLSTATE), cut short, and storable as Postgres text. */
export function failureReason(error: unknown): string {
  const sqlstate = sqlstateOf(error);
  const message = (error as { message?: unknown } | undefined)?.message;
  // A message may quote the item's own data, which may be what failed.
  return storableText(`${typeof message === "string" ? message : String(error)}${sqlstate ? ` (SQLSTATE ${sqlstate})` : ""}`, 500);
}

/** `text` cut to `max` characters, without NUL or a lone surrogate: Postgres text can hold it whatever it came from. */
export function storableText(text: string, max: number): string {
  return text
    .slice(0, max)
    .replaceAll("\u0000", "")
    .replace(/\p{Cs}/gu, "\ufffd");
}
