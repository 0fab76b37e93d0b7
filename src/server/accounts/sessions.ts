// Dashboard sessions: a random token in an http-only cookie, stored only as its SHA-256, so a
// database read yields no usable session. Staff see every account; a member only their own.
import { createHash, randomBytes } from "node:crypto";
import { db } from "@/server/db/client";
import { TallyError } from "@/server/errors";
import { verifyPassword } from "./passwords";

export const SESSION_COOKIE = "tally_session";
export const SESSION_DAYS = 30;

/** Who is asking, as every dashboard procedure sees it. */
export interface Viewer {
  userId: string;
  email: string;
  name: string;
  role: "staff" | "member";
  /** The member's account; null for staff. */
  accountId: string | null;
}

/** The session token a request's cookie carries, or null. */
export function sessionTokenOf(request: Request): string | null {
  const prefix = `${SESSION_COOKIE}=`;
  const part = request.headers.get("cookie")?.split(";").map((p) => p.trim()).find((p) => p.startsWith(prefix));
  return part ? part.slice(prefix.length) : null;
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

// A hash to compare against when the e-mail is unknown, so both cases take as long.
const UNKNOWN_USER_HASH = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

/** Checks an e-mail and password; on success a new session token (shown to the browser only, as a cookie). */
export async function signIn(email: string, password: string): Promise<{ token: string; expiresAt: Date; viewer: Viewer }> {
  const user = await db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  const valid = await verifyPassword(password, user?.passwordHash ?? UNKNOWN_USER_HASH);
  if (!user || !valid) throw new TallyError("unauthorized", "the e-mail or the password is wrong");
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + SESSION_DAYS * 86_400_000);
  await db.userSession.create({ data: { tokenHash: hashToken(token), userId: user.id, expiresAt } });
  return { token, expiresAt, viewer: { userId: user.id, email: user.email, name: user.name, role: user.role, accountId: user.accountId } };
}

/** The signed-in user of a session token, or null (unknown, expired or signed out). */
export async function viewerOfSession(token: string | undefined | null): Promise<Viewer | null> {
  if (!token) return null;
  const session = await db.userSession.findUnique({ where: { tokenHash: hashToken(token) }, include: { user: true } });
  if (!session || session.expiresAt <= new Date()) return null;
  const { user } = session;
  return { userId: user.id, email: user.email, name: user.name, role: user.role, accountId: user.accountId };
}

export async function signOut(token: string | undefined | null): Promise<void> {
  if (token) await db.userSession.deleteMany({ where: { tokenHash: hashToken(token) } });
}

/** Whether a viewer may see and manage an account's objects: staff any, a member their own. */
export const canAccess = (viewer: Viewer, accountId: string) => viewer.role === "staff" || viewer.accountId === accountId;
