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
// forms show it, rather than zod's issue list as JSON. Either refusal, the schema's or the
// domain's (TallyError's `fieldErrors`), also reaches the browser as `data.fieldErrors`, each
// problem under its field's name (the last name in a zod issue's path: `settings.bid` is `bid`),
// so a form puts it beside that field without reading the message.
const t = initTRPC.context<TrpcContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const invalid = error.code === "BAD_REQUEST" && error.cause instanceof ZodError ? error.cause : null;
    const fieldErrors: Record<string, string> | null =
      error.cause instanceof TallyError ? (error.cause.details?.fieldErrors ?? null) : invalid ? zodFieldErrors(invalid) : null;
    const message = invalid ? invalid.issues.map((issue) => `${issue.path.join(".") || "input"} ${issue.message}`).join("; ") : shape.message;
    return { ...shape, message, data: { ...shape.data, fieldErrors } };
  },
});

/** The first problem of each field a zod error names, under the field's own (last) name. */
export function zodFieldErrors(error: ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const name = issue.path.findLast((part) => typeof part === "string");
    if (typeof name === "string" && !(name in fields)) fields[name] = issue.message;
  }
  return fields;
}

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
