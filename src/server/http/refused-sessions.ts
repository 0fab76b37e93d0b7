// Sessions this process has just refused for a rate, remembered until their Retry-After passes, so
// that a client that keeps posting regardless is answered 429 again from memory, before its
// session is looked up in the database: a refusal then costs the process next to nothing.
// Keyed by a hash of the session token (the token itself is never kept), and only once the token
// has been seen to belong to a signed-in person who was refused: a value nobody signed in with is
// never remembered, so a stranger cannot get a real person refused, and another person's token
// hashes elsewhere. Only rate refusals are remembered: their window cannot end earlier in any
// process, whereas a slot may be freed by another process at any moment.
import { createHash } from "node:crypto";
import type { DashboardRefusal } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";

/** Enough for every person refused within a minute on a busy process; the oldest go first past it. */
const MAX_REMEMBERED = 10_000;

interface Refusal {
  at: number;
  until: number;
  reason: DashboardRefusal;
  message: string;
  fields: Record<string, string>;
}

const holder = globalThis as unknown as { tallyRefusedSessions?: Map<string, Refusal> };
const remembered = () => (holder.tallyRefusedSessions ??= new Map());

const keyOf = (token: string) => createHash("sha256").update(token).digest("base64url");

/** Remembers that the session `token` was refused by `refusal` (a 429 with its Retry-After) and the fields it carried. */
export function rememberRefusal(token: string, refused: { refusal: TallyError; reason: DashboardRefusal; fields: Record<string, string> }): void {
  const { refusal, reason, fields } = refused;
  const seconds = refusal.details?.retryAfterSeconds;
  if (refusal.code !== "too_many_requests" || !seconds) return;
  const map = remembered();
  const key = keyOf(token);
  map.delete(key);
  while (map.size >= MAX_REMEMBERED) map.delete(map.keys().next().value as string);
  const now = Date.now();
  map.set(key, { at: now, until: now + seconds * 1000, reason, message: refusal.message, fields });
}

/** The refusal still in force for the session `token`, its Retry-After the time left; null once it has passed. */
export function earlierRefusal(token: string | null): { refusal: TallyError; reason: DashboardRefusal; fields: Record<string, string> } | null {
  if (!token) return null;
  const map = remembered();
  const key = keyOf(token);
  const found = map.get(key);
  if (!found) return null;
  const left = found.until - Date.now();
  if (left <= 0) {
    map.delete(key);
    return null;
  }
  const refusal = new TallyError("too_many_requests", found.message, { retryAfterSeconds: Math.max(1, Math.ceil(left / 1000)) });
  return { refusal, reason: found.reason, fields: elapsed(found.fields, Math.floor((Date.now() - found.at) / 1000)) };
}

/** The fields with each RateLimit `t=` (seconds until a window starts again) counted down by `seconds`. */
function elapsed(fields: Record<string, string>, seconds: number): Record<string, string> {
  const { RateLimit: state, ...rest } = fields;
  if (!state || seconds === 0) return fields;
  return { ...rest, RateLimit: state.replace(/;t=(\d+)/g, (_, t: string) => `;t=${Math.max(0, Number(t) - seconds)}`) };
}

/** How many refusals are remembered (for tests of the bound). */
export function rememberedRefusals(): number {
  return remembered().size;
}

/** Forgets every remembered refusal (tests change the limits). */
export function forgetRefusals(): void {
  holder.tallyRefusedSessions = undefined;
}
