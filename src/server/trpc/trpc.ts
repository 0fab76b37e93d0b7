// tRPC for the dashboard: procedures parse their input with zod, check who is asking, and call a
// domain function in src/server/<domain>/. Domain errors (TallyError) become tRPC errors here,
// in one place. Every procedure that touches an account checks it on the server: an id forged in
// the browser reaches nothing (NOT_FOUND, as for an id that does not exist).
import { initTRPC, TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { canAccess, type Viewer, wholeViewer } from "@/server/accounts/sessions";
import { TallyError, type TallyErrorCode } from "@/server/errors";

export interface TrpcContext {
  viewer: Viewer | null;
  /** Set by the HTTP adapter: the session cookie to write (sign-in) or clear (sign-out). */
  setSessionCookie?: (token: string | null, expiresAt?: Date) => void;
  sessionToken?: string | null;
  /** The client's address (src/server/http/client-address.ts), for the sign-in limits. */
  clientAddress?: string | null;
}

// Input that fails its zod schema is a 400 whose message names each field in words, as the
// forms show it, rather than zod's issue list as JSON.
const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    if (error.code !== "BAD_REQUEST" || !(error.cause instanceof ZodError)) return shape;
    const message = error.cause.issues.map((issue) => `${issue.path.join(".") || "input"} ${issue.message}`).join("; ");
    return { ...shape, message };
  },
});

const CODES: Partial<Record<TallyErrorCode, TRPCError["code"]>> = {
  bad_request: "BAD_REQUEST",
  unauthorized: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  not_found: "NOT_FOUND",
  validation_failed: "BAD_REQUEST",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  too_many_requests: "TOO_MANY_REQUESTS",
  unavailable: "SERVICE_UNAVAILABLE",
};

const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof TallyError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: CODES[cause.code] ?? "INTERNAL_SERVER_ERROR", message: cause.message, cause });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
// Whatever built the context, a viewer that is not whole (a member without an account) is no
// viewer at all: it reaches only what a signed-out visitor does, never a scope of "no account".
export const publicProcedure = t.procedure.use(domainErrors).use(({ ctx, next }) => next({ ctx: { ...ctx, viewer: wholeViewer(ctx.viewer) } }));

export const signedInProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.viewer) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in first" });
  return next({ ctx: { ...ctx, viewer: ctx.viewer } });
});

export const staffProcedure = signedInProcedure.use(({ ctx, next }) => {
  if (ctx.viewer.role !== "staff") throw new TRPCError({ code: "FORBIDDEN", message: "for account managers only" });
  return next();
});

/** NOT_FOUND unless the viewer may see the account: a member learns nothing of other accounts. */
export function assertAccount(viewer: Viewer, accountId: string, what = "object"): void {
  if (!canAccess(viewer, accountId)) throw new TRPCError({ code: "NOT_FOUND", message: `no such ${what}` });
}
