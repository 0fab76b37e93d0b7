// A ZIP archive written as a stream, for XLSX: fflate's streaming Zip lays out the archive (local
// headers, data descriptors, so no entry is held whole, then the central directory), and each
// entry's bytes are deflated at level 1 and checksummed by node:zlib as they arrive. fflate's own
// deflate and CRC, in JavaScript, took twice as long on the 100,000-row download; with node:zlib's
// the archive takes the time the hand-made writer it replaced did (npm run bench:xlsx;
// docs/decisions/0014-zip-from-fflate.md).
//
// No ZIP64: an archive holds at most 65,535 entries, each at most 4 GiB - 1 before and after
// compression, with every entry starting, and the central directory starting, within the first
// 4 GiB. fflate writes those fields as 16 and 32 bits without a check, so a larger archive would
// come out corrupt: this writer refuses instead, with the limit in words, and the download errors.
// An XLSX download stays inside them: a sheet stops at 1,048,576 rows, far below the 4 GiB of XML
// or archive the limits allow for the widest report (sizes per 100,000 rows: npm run bench:xlsx,
// bench/results.md); larger data is what the export is for. So no
// ZIP64, and no reader has to support it.
import zlib from "node:zlib";
import { Zip, ZipPassThrough } from "fflate";
import type { ByteSink } from "./table-writer";

/** What a ZIP file without ZIP64 can hold: its 16-bit entry count, its 32-bit sizes and offsets. */
export const ZIP_LIMITS = { entries: 0xffff, bytes: 0xffff_ffff } as const;

export interface ZipLimits {
  entries: number;
  bytes: number;
}

export interface ZipWriter {
  /** Starts entry `name`, ending the one before: entries are written whole, one after another. */
  entry(name: string): Promise<void>;
  /** Appends to the current entry. */
  write(content: string | Uint8Array): Promise<void>;
  /** Ends the last entry and writes the central directory. */
  close(): Promise<void>;
}

export interface ZipOptions {
  /** The entries' modification time (now unless given). */
  now?: Date;
  /** ZIP_LIMITS unless given: smaller ones let the tests reach them without writing 4 GiB. */
  limits?: ZipLimits;
}

const DEFLATE = 8;
const DATA_DESCRIPTOR = 16;

/**
 * An entry whose chunks node:zlib deflates (each ends in a sync flush: byte-aligned blocks that
 * concatenate into one deflate stream; the last chunk finishes it) and checksums. Synchronous, on
 * this thread: for chunks of a page of rows that is quicker than handing each to the thread pool.
 */
class ZlibEntry extends ZipPassThrough {
  private sum = 0;

  constructor(name: string) {
    super(name);
    this.compression = DEFLATE;
  }

  override push(chunk: Uint8Array, final = false): void {
    this.sum = zlib.crc32(chunk, this.sum);
    this.size += chunk.length;
    if (final) this.crc = this.sum;
    this.process(chunk as Uint8Array<ArrayBuffer>, final);
  }

  protected override process(chunk: Uint8Array<ArrayBuffer>, final: boolean): void {
    const flush = final ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH;
    this.ondata(null, zlib.deflateRawSync(chunk, { level: 1, finishFlush: flush }), final);
  }
}

// fflate stamps entries in local time; shifting the instant by the offset makes the stamp the UTC
// time whatever the server's time zone.
const asUtcStamp = (when: Date) => new Date(when.getTime() + when.getTimezoneOffset() * 60_000);

export function zipWriter(sink: ByteSink, options: ZipOptions = {}): ZipWriter {
  const limits = options.limits ?? ZIP_LIMITS;
  const mtime = asUtcStamp(options.now ?? new Date());
  let pending: Uint8Array[] = [];
  let failure: Error | null = null;
  // fflate hands its bytes over synchronously while it is pushed to; they go to the sink after.
  const zip = new Zip((error, chunk) => {
    if (error) failure ??= error;
    else pending.push(chunk);
  });
  let offset = 0;
  let entries = 0;
  let current: { name: string; file: ZlibEntry; size: number; start: number; header: number } | null = null;

  const flush = async () => {
    if (failure) throw failure;
    const chunks = pending;
    pending = [];
    for (const chunk of chunks) {
      offset += chunk.length;
      await sink(chunk);
    }
  };

  const refused = (what: string) =>
    new RangeError(
      `${what}: a ZIP file without ZIP64 holds at most ${limits.entries.toLocaleString("en")} entries of at most ${limits.bytes.toLocaleString("en")} bytes each, within its first ${limits.bytes.toLocaleString("en")} bytes`,
    );

  const endEntry = async () => {
    if (!current) return;
    const { name, file, start, header } = current;
    current = null;
    file.push(new Uint8Array(0), true);
    await flush();
    const compressed = offset - start - header - DATA_DESCRIPTOR;
    if (compressed > limits.bytes) throw refused(`entry ${name} is ${compressed.toLocaleString("en")} bytes deflated`);
  };

  return {
    async entry(name) {
      await endEntry();
      if (entries + 1 > limits.entries) throw refused(`entry ${name} would be entry ${(entries + 1).toLocaleString("en")}`);
      if (offset > limits.bytes) throw refused(`entry ${name} would start at byte ${offset.toLocaleString("en")}`);
      entries += 1;
      const file = new ZlibEntry(name);
      file.mtime = mtime;
      // fflate sends the local header (30 bytes and the name) with the entry's first bytes.
      current = { name, file, size: 0, start: offset, header: 30 + Buffer.byteLength(name, "utf8") };
      zip.add(file);
      await flush();
    },
    async write(content) {
      if (!current) throw new Error("a ZIP entry must be started before it is written to");
      const bytes = typeof content === "string" ? Buffer.from(content, "utf8") : content;
      if (bytes.length === 0) return;
      current.size += bytes.length;
      if (current.size > limits.bytes) throw refused(`entry ${current.name} is more than ${limits.bytes.toLocaleString("en")} bytes`);
      current.file.push(bytes);
      await flush();
    },
    async close() {
      await endEntry();
      if (offset > limits.bytes) throw refused(`the central directory would start at byte ${offset.toLocaleString("en")}`);
      zip.end();
      await flush();
    },
  };
}
