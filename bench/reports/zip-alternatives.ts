// The ZIP writers `npm run bench:xlsx` measures src/server/formats/zip.ts against:
//   - handMadeZip: the writer Tally's XLSX downloads used before (src/server/pipeline/report/streaming-zip.ts
//     until then): each chunk deflated on its own by node:zlib at level 1 and ended with a sync
//     flush, CRC and sizes in data descriptors, no ZIP64, the 4 GiB checks it had;
//   - fflateDeflateZip: fflate's streaming Zip with fflate's own deflate and CRC (ZipDeflate,
//     level 1), as the library comes, without zip.ts's limits.
import zlib from "node:zlib";
import { Zip, ZipDeflate } from "fflate";
import type { ByteSink } from "@/server/formats/table-writer";
import type { ZipWriter } from "@/server/formats/zip";

const LIMIT_4GIB = 0xffffffff;
// General purpose flags: bit 3 (sizes and CRC in a data descriptor), bit 11 (UTF-8 names).
const FLAGS = 0x0808;
const DEFLATE = 8;

interface Written {
  name: Buffer;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

function dosDateTime(when: Date): { time: number; date: number } {
  return {
    time: (when.getUTCHours() << 11) | (when.getUTCMinutes() << 5) | Math.floor(when.getUTCSeconds() / 2),
    date: ((when.getUTCFullYear() - 1980) << 9) | ((when.getUTCMonth() + 1) << 5) | when.getUTCDate(),
  };
}

function localHeader(name: Buffer, stamp: { time: number; date: number }): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(FLAGS, 6);
  header.writeUInt16LE(DEFLATE, 8);
  header.writeUInt16LE(stamp.time, 10);
  header.writeUInt16LE(stamp.date, 12);
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

export function handMadeZip(sink: ByteSink, now = new Date()): ZipWriter {
  const stamp = dosDateTime(now);
  const written: Written[] = [];
  let offset = 0;
  let current: Written | null = null;
  const emit = async (bytes: Buffer) => {
    offset += bytes.length;
    await sink(bytes);
  };
  const endEntry = async () => {
    if (!current) return;
    const record = current;
    current = null;
    // The final block: empty, fixed Huffman codes (BFINAL=1, BTYPE=01, end of block).
    const last = Buffer.from([0x03, 0x00]);
    record.compressedSize += last.length;
    await emit(last);
    if (record.compressedSize > LIMIT_4GIB) throw new Error("zip entry is larger than 4 GiB");
    await emit(dataDescriptor(record));
    written.push(record);
  };
  return {
    async entry(name) {
      await endEntry();
      const encoded = Buffer.from(name, "utf8");
      current = { name: encoded, crc: 0, compressedSize: 0, size: 0, offset };
      await emit(localHeader(encoded, stamp));
    },
    async write(content) {
      const record = current!;
      const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
      if (bytes.length === 0) return;
      record.crc = zlib.crc32(bytes, record.crc);
      record.size += bytes.length;
      if (record.size > LIMIT_4GIB) throw new Error("zip entry is larger than 4 GiB");
      const deflated = zlib.deflateRawSync(bytes, { level: 1, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      record.compressedSize += deflated.length;
      await emit(deflated);
    },
    async close() {
      await endEntry();
      await emit(centralDirectory(written, stamp, offset));
    },
  };
}

export function fflateDeflateZip(sink: ByteSink): ZipWriter {
  let pending: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    pending.push(chunk);
  });
  let current: ZipDeflate | null = null;
  const flush = async () => {
    const chunks = pending;
    pending = [];
    for (const chunk of chunks) await sink(chunk);
  };
  const endEntry = async () => {
    current?.push(new Uint8Array(0), true);
    current = null;
    await flush();
  };
  return {
    async entry(name) {
      await endEntry();
      current = new ZipDeflate(name, { level: 1 });
      zip.add(current);
    },
    async write(content) {
      current!.push(typeof content === "string" ? Buffer.from(content, "utf8") : content);
      await flush();
    },
    async close() {
      await endEntry();
      zip.end();
      await flush();
    },
  };
}
