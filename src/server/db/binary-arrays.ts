// One-dimensional array parameters in Postgres's binary format, for the multi-row append of the
// accept path (append-beacons.sql.ts). node-postgres sends a Buffer parameter as binary, so
// Postgres reads each element with its type's receive function: nothing is quoted or escaped here,
// nothing is parsed there. As text, pg built each array by string concatenation, a large share of
// all the collector allocated per beacon (bench/results.md).
//
// The format (array_recv): dimensions (1), a has-nulls flag, the element type's OID, then the
// length and lower bound (1) of the one dimension, then each element as its byte length (-1 for
// NULL) followed by its bytes, all integers big-endian.

const OID = { bool: 16, int2: 21, text: 25, timestamptz: 1184, uuid: 2950 } as const;
const HEADER_BYTES = 20;

function writeHeader(buffer: Buffer, oid: number, count: number, hasNull: boolean): number {
  buffer.writeInt32BE(1, 0);
  buffer.writeInt32BE(hasNull ? 1 : 0, 4);
  buffer.writeUInt32BE(oid, 8);
  buffer.writeInt32BE(count, 12);
  buffer.writeInt32BE(1, 16);
  return HEADER_BYTES;
}

/** A `text[]` parameter. */
export function textArray(values: readonly (string | null)[]): Buffer {
  // At most 3 bytes of UTF-8 per UTF-16 unit: room enough without measuring each string first.
  let room = HEADER_BYTES;
  let hasNull = false;
  for (const value of values) {
    room += 4;
    if (value === null) hasNull = true;
    else room += value.length * 3;
  }
  const buffer = Buffer.allocUnsafe(room);
  let at = writeHeader(buffer, OID.text, values.length, hasNull);
  for (const value of values) {
    if (value === null) {
      buffer.writeInt32BE(-1, at);
      at += 4;
      continue;
    }
    const length = buffer.write(value, at + 4, "utf8");
    buffer.writeInt32BE(length, at);
    at += 4 + length;
  }
  return buffer.subarray(0, at);
}

/** A `smallint[]` parameter. */
export function int2Array(values: readonly number[]): Buffer {
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + values.length * 6);
  let at = writeHeader(buffer, OID.int2, values.length, false);
  for (const value of values) {
    buffer.writeInt32BE(2, at);
    buffer.writeInt16BE(value, at + 4);
    at += 6;
  }
  return buffer;
}

/** A `boolean[]` parameter. */
export function boolArray(values: readonly boolean[]): Buffer {
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + values.length * 5);
  let at = writeHeader(buffer, OID.bool, values.length, false);
  for (const value of values) {
    buffer.writeInt32BE(1, at);
    buffer[at + 4] = value ? 1 : 0;
    at += 5;
  }
  return buffer;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A `uuid[]` parameter. Throws on a value that is no UUID: as binary, Postgres would take any 16
 * bytes, where as text it refused them.
 */
export function uuidArray(values: readonly string[]): Buffer {
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + values.length * 20);
  let at = writeHeader(buffer, OID.uuid, values.length, false);
  for (const value of values) {
    if (!UUID.test(value)) throw new TypeError(`not a UUID: ${JSON.stringify(value)}`);
    buffer.writeInt32BE(16, at);
    buffer.write(value.replaceAll("-", ""), at + 4, 16, "hex");
    at += 20;
  }
  return buffer;
}

/** Postgres counts timestamps in microseconds from 2000-01-01 UTC. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);

/** A `timestamptz[]` parameter (millisecond precision, as a Date holds). Throws on an invalid Date. */
export function timestamptzArray(values: readonly (Date | null)[]): Buffer {
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + values.length * 12);
  let at = writeHeader(
    buffer,
    OID.timestamptz,
    values.length,
    values.some((value) => value === null),
  );
  for (const value of values) {
    if (value === null) {
      buffer.writeInt32BE(-1, at);
      at += 4;
      continue;
    }
    const ms = value.getTime();
    if (!Number.isFinite(ms)) throw new RangeError("an invalid Date cannot be stored");
    buffer.writeInt32BE(8, at);
    buffer.writeBigInt64BE(BigInt(ms - POSTGRES_EPOCH_MS) * 1000n, at + 4);
    at += 12;
  }
  return buffer.subarray(0, at);
}
