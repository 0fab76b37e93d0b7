import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { readZipWithPython } from "@/testing/python-zip";
import { ZIP_LIMITS, type ZipLimits, zipWriter } from "./zip";

/** An archive of `entries` (name and its chunks), and what the writer threw, if anything. */
async function archive(entries: [string, (string | Uint8Array)[]][], options: { now?: Date; limits?: ZipLimits } = {}) {
  const chunks: Uint8Array[] = [];
  const zip = zipWriter((chunk) => void chunks.push(chunk), options);
  try {
    for (const [name, content] of entries) {
      await zip.entry(name);
      for (const chunk of content) await zip.write(chunk);
    }
    await zip.close();
    return { bytes: Buffer.concat(chunks), error: null };
  } catch (error) {
    return { bytes: Buffer.concat(chunks), error: error as Error };
  }
}

describe("zipWriter", () => {
  it("writes entries Python's zipfile reads back whole, every CRC matching, names in UTF-8, stamped in UTC", async () => {
    const random = randomBytes(200_000); // does not deflate: stored blocks inside the deflate stream
    const text = "<row>ünïcødé &amp; text</row>".repeat(5_000);
    const { bytes, error } = await archive(
      [
        ["xl/worksheets/sheet1.xml", [text.slice(0, 1000), text.slice(1000), ""]],
        ["random.bin", [random.subarray(0, 70_000), random.subarray(70_000)]],
        ["empty.txt", []],
        ["naïve/ünïcødé.xml", ["<a/>"]],
      ],
      { now: new Date("2026-11-12T13:14:16Z") },
    );
    expect(error).toBeNull();
    const zip = readZipWithPython(bytes);
    expect(zip.badCrc).toBeNull();
    expect(zip.names).toEqual(["xl/worksheets/sheet1.xml", "random.bin", "empty.txt", "naïve/ünïcødé.xml"]);
    expect(zip.entries["xl/worksheets/sheet1.xml"]).toMatchObject({ size: Buffer.byteLength(text), text: null, head: text.slice(0, 300) });
    expect(zip.entries["xl/worksheets/sheet1.xml"]!.compressedSize).toBeLessThan(Buffer.byteLength(text) / 10);
    expect(zip.entries["random.bin"]!.size).toBe(200_000);
    expect(zip.entries["empty.txt"]).toMatchObject({ size: 0, text: "" });
    expect(zip.entries["naïve/ünïcødé.xml"]).toMatchObject({ text: "<a/>", dateTime: [2026, 11, 12, 13, 14, 16] });
  });

  it("states the limits of a ZIP without ZIP64", () => {
    expect(ZIP_LIMITS).toEqual({ entries: 65_535, bytes: 4_294_967_295 });
  });

  it("holds 65,535 entries and refuses the 65,536th in words, rather than writing a count that wraps", async () => {
    const chunks: Uint8Array[] = [];
    const zip = zipWriter((chunk) => void chunks.push(chunk));
    for (let i = 0; i < 65_535; i += 1) await zip.entry(`e${i}`);
    await expect(zip.entry("e65535")).rejects.toThrow(
      new RangeError(
        "entry e65535 would be entry 65,536: a ZIP file without ZIP64 holds at most 65,535 entries of at most 4,294,967,295 bytes each, within its first 4,294,967,295 bytes",
      ),
    );
    // The entries before the refused one still make a whole archive.
    await zip.close();
    const read = readZipWithPython(Buffer.concat(chunks));
    expect(read.badCrc).toBeNull();
    expect(read.names).toHaveLength(65_535);
    expect(read.names.at(-1)).toBe("e65534");
  }, 60_000);

  // The same checks guard 4 GiB; smaller limits reach them without writing 4 GiB.
  it("refuses an entry larger than the limit before writing its bytes", async () => {
    const limits = { entries: 10, bytes: 1_000 };
    const fits = await archive([["a", ["x".repeat(600), "x".repeat(400)]]], { limits });
    expect(fits.error).toBeNull();
    expect(readZipWithPython(fits.bytes).entries.a!.size).toBe(1_000);
    const over = await archive([["a", ["x".repeat(600), "x".repeat(401)]]], { limits });
    expect(over.error?.message).toMatch(/^entry a is more than 1,000 bytes: a ZIP file without ZIP64 holds at most 10 entries of at most 1,000 bytes each/);
  });

  it("refuses an entry that deflates to more than the limit, and an archive whose entries or directory would start past it", async () => {
    const limits = { entries: 10, bytes: 1_000 };
    // 1,000 random bytes grow a little when deflated.
    const grows = await archive([["r", [randomBytes(1_000)]]], { limits });
    expect(grows.error?.message).toMatch(/^entry r is 1,0\d\d bytes deflated: /);
    const text = "x".repeat(900);
    // Each of these deflates to a few bytes: 1,000 bytes of archive take many entries.
    const late = await archive(
      Array.from({ length: 10 }, (_, i) => [`${"n".repeat(200)}${i}`, [text]]),
      { limits },
    );
    expect(late.error?.message).toMatch(/^entry n+4 would start at byte 1,\d{3}: /);
    const directory = await archive([["big", [randomBytes(900)]]], { limits: { entries: 10, bytes: 950 } });
    expect(directory.error?.message).toMatch(/^the central directory would start at byte 9\d\d: /);
  });
});
