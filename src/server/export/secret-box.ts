// Export destinations' secrets at rest: AES-256-GCM under TALLY_SECRETS_KEY, with the destination's
// id as associated data, so a ciphertext copied onto another destination does not decrypt.
// Stored as version (1 byte) ‖ nonce (12) ‖ tag (16) ‖ ciphertext. Any change fails closed.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { env } from "@/env";
import { TallyError } from "@/server/errors";

const VERSION = 1;

export function encryptSecret(plaintext: string, destinationId: string, key: Buffer = env().TALLY_SECRETS_KEY): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(Buffer.from(destinationId, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), ciphertext]);
}

export function decryptSecret(stored: Uint8Array, destinationId: string, key: Buffer = env().TALLY_SECRETS_KEY): string {
  const box = Buffer.from(stored);
  if (box.length < 29 || box[0] !== VERSION) throw new TallyError("internal", "a stored export secret is unreadable");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, box.subarray(1, 13));
    decipher.setAAD(Buffer.from(destinationId, "utf8"));
    decipher.setAuthTag(box.subarray(13, 29));
    return Buffer.concat([decipher.update(box.subarray(29)), decipher.final()]).toString("utf8");
  } catch {
    // A wrong key, another destination's ciphertext or a changed byte: never a guess at the secret.
    throw new TallyError("internal", "a stored export secret does not decrypt with this server's TALLY_SECRETS_KEY");
  }
}
