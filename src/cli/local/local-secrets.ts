// Secrets for a local production-mode run (`npm run start:local`, the e2e tests, benchmarks),
// generated once and kept beside the local database, so tokens stay valid across restarts.
// A real deployment sets its own; the launcher only fills in what is missing.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

export interface LocalSecrets {
  BEACON_SIGNING_KEYS: string;
  /** Encrypts export destinations' secrets. */
  TALLY_SECRETS_KEY: string;
}

function generate(): LocalSecrets {
  return { BEACON_SIGNING_KEYS: `local:${randomBytes(32).toString("base64url")}`, TALLY_SECRETS_KEY: randomBytes(32).toString("base64") };
}

/** Secrets from `<dataDir>/local-secrets.json`, created on first use; `ephemeral`: fresh ones. */
export async function localSecrets(dataDir: string, ephemeral: boolean): Promise<LocalSecrets> {
  if (ephemeral) return generate();
  const file = path.join(dataDir, "local-secrets.json");
  const stored = existsSync(file) ? (JSON.parse(await readFile(file, "utf8")) as Partial<LocalSecrets>) : {};
  const secrets = { ...generate(), ...stored };
  // A file from before a secret existed gains it once, so it stays the same across restarts.
  if (Object.keys(secrets).every((name) => name in stored)) return secrets;
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}
