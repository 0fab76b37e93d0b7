// tRPC for the dashboard: procedures parse their input with zod and call one domain function in
// src/server/<domain>/ with the viewer, which decides what the viewer may see and change (an id
// forged in the browser reaches nothing: "not found", as for an id that does not exist). Domain
// errors (TallyError) become tRPC errors here, in one place. superjson carries Dates (and
// bigints) to the browser as what they are, not as strings.
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { type Viewer, wholeViewer } from "@/server/accounts/sessions";
import { TallyError, type TallyErrorCode } from "@/server/core/errors";
import { countDashboardWork } from "@/server/http/dashboard-rate-limit";

export interface TrpcContext {
  viewer: Viewer | null;
  /** Set by the HTTP adapter: the session cookie to write (sign-in) or clear (sign-out). */
  setSessionCookie?: (token: string | null, expiresAt?: Date) => void;
  sessionToken?: string | null;
  /** The client's address (src/server/http/client-address.ts), for the sign-in limits. */
  clientAddress?: string | null;
  /** The origin the request came to, for links Tally hands out when TALLY_PUBLIC_URL is unset. */
  origin?: string | null;
}

// Input that fails its zod schema is a 400 whose message names each field in words, as the
// forms show it, rather than zod's issue list as JSON.
const t = initTRPC.context<TrpcContext>().create({
  transformer: superjson,
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

// Refuses members before their input is read; the domain functions behind these procedures
// enforce the same rule (accounts/actor.ts) for every caller, the dashboard included.
export const staffProcedure = signedInProcedure.use(({ ctx, next }) => {
  if (ctx.viewer.role !== "staff") throw new TRPCError({ code: "FORBIDDEN", message: "for account managers only" });
  return next();
});

// The figures over a date range sum a rollup row per day and campaign: each call counts against
// its person's and account's figures a minute, in every process together (429 with Retry-After).
export const figuresProcedure = signedInProcedure.use(async ({ ctx, next }) => {
  const { refusal } = await countDashboardWork("figures", { user: `user:${ctx.viewer.userId}`, account: ctx.viewer.accountId ?? "staff" });
  if (refusal) throw refusal;
  return next();
});
