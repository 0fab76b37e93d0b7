// ZIP files read back by a reader Tally did not write: Python's zipfile (python3 is on every
// machine the project runs on). testzip() checks every entry's CRC-32 against its inflated bytes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface PythonZipEntry {
  size: number;
  compressedSize: number;
  crc: number;
  /** DOS time stamp as zipfile reads it: [year, month, day, hour, minute, second]. */
  dateTime: number[];
  /** `<row r="` occurrences: the rows of an XLSX sheet. */
  rows: number;
  head: string;
  tail: string;
  /** The whole text, for entries up to 64 KiB. */
  text: string | null;
}

export interface PythonZip {
  /** The first entry whose CRC does not match, or null when all do. */
  badCrc: string | null;
  names: string[];
  entries: Record<string, PythonZipEntry>;
}

const SCRIPT = `
import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    entries = {}
    for info in z.infolist():
        data = z.read(info)
        text = data.decode("utf-8", "replace")
        entries[info.filename] = {
            "size": info.file_size, "compressedSize": info.compress_size, "crc": info.CRC,
            "dateTime": list(info.date_time), "rows": text.count('<row r="'),
            "head": text[:300], "tail": text[-300:], "text": text if len(data) <= 65536 else None,
        }
    print(json.dumps({"badCrc": bad, "names": z.namelist(), "entries": entries}))
`;

export function readZipWithPython(bytes: Uint8Array): PythonZip {
  const dir = mkdtempSync(path.join(tmpdir(), "tally-zip-"));
  try {
    const file = path.join(dir, "archive.zip");
    writeFileSync(file, bytes);
    return JSON.parse(execFileSync("python3", ["-c", SCRIPT, file], { encoding: "utf8", maxBuffer: 256 << 20 })) as PythonZip;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
