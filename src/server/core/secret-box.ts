// Secrets at rest (export destinations' keys, publishers' order-signing secrets): AES-256-GCM under
// TALLY_SECRETS_KEY, with the owning row's id as associated data, so a ciphertext copied onto
// another row does not decrypt. Stored as version (1 byte) ‖ nonce (12) ‖ tag (16) ‖ ciphertext.
// Any change fails closed.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { env } from "@/env";
import { TallyError } from "@/server/core/errors";

const VERSION = 1;

export function encryptSecret(plaintext: string, ownerId: string, key: Buffer = env().TALLY_SECRETS_KEY): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(Buffer.from(ownerId, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), ciphertext]);
}

export function decryptSecret(stored: Uint8Array, ownerId: string, key: Buffer = env().TALLY_SECRETS_KEY): string {
  const box = Buffer.from(stored);
  if (box.length < 29 || box[0] !== VERSION) throw new TallyError("internal", "a stored secret is unreadable");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, box.subarray(1, 13));
    decipher.setAAD(Buffer.from(ownerId, "utf8"));
    decipher.setAuthTag(box.subarray(13, 29));
    return Buffer.concat([decipher.update(box.subarray(29)), decipher.final()]).toString("utf8");
  } catch {
    // A wrong key, another row's ciphertext or a changed byte: never a guess at the secret.
    throw new TallyError("internal", "a stored secret does not decrypt with this server's TALLY_SECRETS_KEY");
  }
}
