import { timingSafeEqual } from "node:crypto";

/** Whether an Authorization header carries `Bearer <secret>`, compared in constant time; never without a configured secret. */
export function bearerMatches(header: string | null, secret: string | undefined): boolean {
  if (!secret) return false;
  const given = Buffer.from(header ?? "");
  const expected = Buffer.from(`Bearer ${secret}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
