// Dashboard sessions: a random token in an http-only cookie, stored only as its SHA-256, so a
// database read yields no usable session. Staff see every account; a member only their own, and
// a member without an account (the database refuses one) nothing at all. A session ends 30 days
// after sign-in, or after 12 hours without a request, whichever comes first; an ended session is
// deleted when it is presented, and all of them at every sign-in.
import { createHash, randomBytes } from "node:crypto";
import { DAY_MS } from "@/server/core/days";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { verifyPassword } from "./passwords";
import { endedSessionsDelete } from "./sessions.sql";
import type { MemberRole } from "./user-input";

export { MEMBER_ROLES, type MemberRole } from "./user-input";

export const SESSION_COOKIE = "tally_session";
/** A session's absolute life, however active it is. */
export const SESSION_DAYS = 30;
/**
 * A session unused this long ends: a working day of dashboard use never meets it, while a tab
 * left open overnight, or a shared computer, needs the password again the next morning.
 */
export const SESSION_IDLE_HOURS = 12;
/** `last_seen_at` moves at most this often per session: a request reads the session, not writes it. */
export const LAST_SEEN_STEP_MS = 60_000;
const IDLE_MS = SESSION_IDLE_HOURS * 3_600_000;

/** Who is asking, as every dashboard procedure sees it: staff, or a member of exactly one account, with their role in it. */
export type Viewer = { userId: string; email: string; name: string } & (
  | { role: "staff"; accountId: null }
  | { role: "member"; accountId: string; memberRole: MemberRole }
);

const isMemberRole = (value: unknown): value is MemberRole => value === "admin" || value === "viewer";

/**
 * The viewer a user row makes, or null when it makes none: a member must name an account, or a
 * scope built from it could read "no account" as "every account", and a role in it, or nobody
 * could tell whether they may change it. Fails closed on anything else.
 */
function viewerOf(user: { id: string; email: string; name: string; role: string; accountId: string | null; memberRole?: string | null }): Viewer | null {
  const who = { userId: user.id, email: user.email, name: user.name };
  if (user.role === "staff") return { ...who, role: "staff", accountId: null };
  if (user.role === "member" && typeof user.accountId === "string" && user.accountId !== "" && isMemberRole(user.memberRole)) {
    return { ...who, role: "member", accountId: user.accountId, memberRole: user.memberRole };
  }
  return null;
}

/** The viewer itself when it is whole (staff, or a member with an account and a role in it), else null. */
export function wholeViewer(viewer: Viewer | null | undefined): Viewer | null {
  if (!viewer) return null;
  const memberRole = viewer.role === "member" ? viewer.memberRole : null;
  return viewerOf({ id: viewer.userId, email: viewer.email, name: viewer.name, role: viewer.role, accountId: viewer.accountId, memberRole });
}

/** The session token a request's cookie carries, or null. */
export function sessionTokenOf(request: Request): string | null {
  const prefix = `${SESSION_COOKIE}=`;
  const part = request.headers
    .get("cookie")
    ?.split(";")
    .map((p) => p.trim())
    .find((p) => p.startsWith(prefix));
  return part ? part.slice(prefix.length) : null;
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

// A hash to compare against when the e-mail is unknown, so both cases take as long.
const UNKNOWN_USER_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/** Checks an e-mail and password; on success a new session token (shown to the browser only, as a cookie). */
export async function signIn(email: string, password: string): Promise<{ token: string; expiresAt: Date; viewer: Viewer }> {
  const user = await db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  const valid = await verifyPassword(password, user?.passwordHash ?? UNKNOWN_USER_HASH);
  const viewer = user && valid ? viewerOf(user) : null;
  if (!viewer) throw new TallyError("unauthorized", "the e-mail or the password is wrong");
  return startSession(viewer);
}

/** A new session for a user already proven (a password, an accepted invitation): its token goes to the browser only, as a cookie. */
export async function startSession(viewer: Viewer): Promise<{ token: string; expiresAt: Date; viewer: Viewer }> {
  const now = new Date();
  await deleteEndedSessions(now);
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + SESSION_DAYS * DAY_MS);
  await db.userSession.create({ data: { tokenHash: hashToken(token), userId: viewer.userId, expiresAt, lastSeenAt: now } });
  return { token, expiresAt, viewer };
}

/** The viewer a freshly read user row makes (see viewerOf), for those that sign a user in by other means than a password. */
export const viewerOfUser = (user: Parameters<typeof viewerOf>[0]): Viewer | null => viewerOf(user);

/**
 * The signed-in user of a session token, or null (unknown, signed out, expired, idle, or a user
 * that makes no viewer). An ended session is deleted here; a live one is marked seen, at most once
 * a minute.
 */
export async function viewerOfSession(token: string | undefined | null): Promise<Viewer | null> {
  if (!token) return null;
  const tokenHash = hashToken(token);
  const session = await db.userSession.findUnique({ where: { tokenHash }, include: { user: true } });
  if (!session) return null;
  const now = new Date();
  const viewer = viewerOf(session.user);
  if (!viewer || session.expiresAt <= now || session.lastSeenAt.getTime() <= now.getTime() - IDLE_MS) {
    await db.userSession.deleteMany({ where: { tokenHash } });
    return null;
  }
  if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_STEP_MS) {
    // Conditional, so requests arriving together write once between them.
    await db.userSession.updateMany({ where: { tokenHash, lastSeenAt: { lte: new Date(now.getTime() - LAST_SEEN_STEP_MS) } }, data: { lastSeenAt: now } });
  }
  return viewer;
}

export async function signOut(token: string | undefined | null): Promise<void> {
  if (token) await db.userSession.deleteMany({ where: { tokenHash: hashToken(token) } });
}

/** Deletes every expired or idle session; returns how many. Runs at each sign-in. */
export async function deleteEndedSessions(now = new Date()): Promise<number> {
  return db.$executeRaw(endedSessionsDelete(now, new Date(now.getTime() - IDLE_MS)));
}

/** Whether a viewer may see and manage an account's objects: staff any, a member their own only. */
export function canAccess(viewer: Viewer, accountId: string): boolean {
  if (viewer.role === "staff") return true;
  return viewer.role === "member" && typeof viewer.accountId === "string" && viewer.accountId !== "" && viewer.accountId === accountId;
}
