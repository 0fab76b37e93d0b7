// A ZIP archive written as a stream: each entry is deflated as its content arrives, and its CRC
// and sizes follow it in a data descriptor, so nothing but the current chunk is held in memory.
// Enough of the format for XLSX (PKWARE APPNOTE 6.3: local headers with bit 3, central directory,
// end record; no ZIP64, so an entry stays under 4 GiB).
import zlib from "node:zlib";

export interface ZipEntry {
  name: string;
  /** The entry's content, pulled chunk by chunk. */
  content: AsyncIterable<string | Buffer> | Iterable<string | Buffer>;
}

const LIMIT_4GIB = 0xffffffff;

interface Written {
  name: Buffer;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

/** MS-DOS time and date of `when`, as ZIP headers store them. */
function dosDateTime(when: Date): { time: number; date: number } {
  return {
    time: (when.getUTCHours() << 11) | (when.getUTCMinutes() << 5) | Math.floor(when.getUTCSeconds() / 2),
    date: ((when.getUTCFullYear() - 1980) << 9) | ((when.getUTCMonth() + 1) << 5) | when.getUTCDate(),
  };
}

// General purpose flags: bit 3 (sizes and CRC in a data descriptor), bit 11 (UTF-8 names).
const FLAGS = 0x0808;
const DEFLATE = 8;

function localHeader(name: Buffer, stamp: { time: number; date: number }): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(FLAGS, 6);
  header.writeUInt16LE(DEFLATE, 8);
  header.writeUInt16LE(stamp.time, 10);
  header.writeUInt16LE(stamp.date, 12);
  // CRC and sizes (14..25) are zero here and come in the data descriptor.
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

function dataDescriptor(entry: Written): Buffer {
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(entry.crc, 4);
  descriptor.writeUInt32LE(entry.compressedSize, 8);
  descriptor.writeUInt32LE(entry.size, 12);
  return descriptor;
}

function centralDirectory(entries: Written[], stamp: { time: number; date: number }, start: number): Buffer {
  const records = entries.map((entry) => {
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(FLAGS, 8);
    record.writeUInt16LE(DEFLATE, 10);
    record.writeUInt16LE(stamp.time, 12);
    record.writeUInt16LE(stamp.date, 14);
    record.writeUInt32LE(entry.crc, 16);
    record.writeUInt32LE(entry.compressedSize, 20);
    record.writeUInt32LE(entry.size, 24);
    record.writeUInt16LE(entry.name.length, 28);
    record.writeUInt32LE(entry.offset, 42);
    return Buffer.concat([record, entry.name]);
  });
  const directory = Buffer.concat(records);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(start, 16);
  return Buffer.concat([directory, end]);
}

/**
 * The bytes of a ZIP archive of `entries`, produced as they are pulled: each content chunk is
 * deflated and flushed before the next is asked for, so a slow reader holds the writer back. An
 * entry is written whole before the next is asked for, so later entries may depend on what
 * earlier ones held (the XLSX workbook lists the sheets its rows filled).
 */
export async function* zipStream(entries: Iterable<ZipEntry> | AsyncIterable<ZipEntry>, now = new Date()): AsyncGenerator<Buffer> {
  const stamp = dosDateTime(now);
  const written: Written[] = [];
  let offset = 0;
  for await (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const header = localHeader(name, stamp);
    yield header;
    const record: Written = { name, crc: 0, compressedSize: 0, size: 0, offset };
    offset += header.length;

    for await (const part of entry.content) {
      const bytes = typeof part === "string" ? Buffer.from(part, "utf8") : part;
      if (bytes.length === 0) continue;
      record.crc = zlib.crc32(bytes, record.crc);
      record.size += bytes.length;
      if (record.size > LIMIT_4GIB) throw new Error(`zip entry ${entry.name} is larger than 4 GiB`);
      // Each chunk is deflated on its own and ends in a sync flush: non-final, byte-aligned
      // blocks, which concatenate into one valid deflate stream. Synchronous, on this thread:
      // for chunks of a page of rows that is quicker than handing each to the thread pool.
      const deflated = zlib.deflateRawSync(bytes, { level: 1, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      record.compressedSize += deflated.length;
      yield deflated;
    }
    // The final block: empty, fixed Huffman codes (BFINAL=1, BTYPE=01, end of block).
    const last = Buffer.from([0x03, 0x00]);
    record.compressedSize += last.length;
    yield last;
    if (record.compressedSize > LIMIT_4GIB) throw new Error(`zip entry ${entry.name} is larger than 4 GiB`);
    offset += record.compressedSize;
    const descriptor = dataDescriptor(record);
    yield descriptor;
    offset += descriptor.length;
    written.push(record);
  }
  yield centralDirectory(written, stamp, offset);
}
