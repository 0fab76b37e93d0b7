// The address the local launcher (`npm run dev`, `npm run start:local`) serves Tally at, kept in
// <TALLY_DATA_DIR>/app-url while it runs, so that a CLI run beside it prints links that open
// (an invitation's): the launcher's --port may be anything, and nothing else tells the CLI.
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";

const fileOf = (dataDir: string) => path.join(dataDir, "app-url");

/** Writes the address the launcher serves at; it holds until forgetAppAddress. */
export async function recordAppAddress(dataDir: string, url: string): Promise<void> {
  await writeFile(fileOf(dataDir), `${url}\n`, "utf8");
}

export async function forgetAppAddress(dataDir: string): Promise<void> {
  await rm(fileOf(dataDir), { force: true });
}

/** The address a running launcher wrote, or null when none runs (or what it wrote is not an http(s) address). */
export async function readAppAddress(dataDir: string): Promise<string | null> {
  const text = await readFile(fileOf(dataDir), "utf8").catch(() => null);
  const url = text?.trim() ?? "";
  return /^https?:\/\/[^\s/]+$/.test(url) ? url : null;
}
