// OAuth clients' scopes and the new client form's schema, shared by the server and the dashboard: zod only.
import { z } from "zod";

/**
 * What an access token may be used for: `reports:read` the report routes, `reports:jobs` the
 * report jobs. API keys and dashboard sessions hold every scope.
 */
export const OAUTH_SCOPES = ["reports:read", "reports:jobs"] as const;
export type OauthScope = (typeof OAUTH_SCOPES)[number];
export const ZOauthScope = z.enum(OAUTH_SCOPES);

export const ZCreateOauthClientInput = z.object({
  accountId: z.string().min(1),
  name: z.string().trim().min(1, "is required").max(100, "is at most 100 characters"),
  scopes: z
    .array(ZOauthScope)
    .min(1, "needs at least one scope")
    // Kept in OAUTH_SCOPES' order without repeats, so a client's scopes read the same wherever shown.
    .transform((scopes) => OAUTH_SCOPES.filter((scope) => scopes.includes(scope))),
});
export type TCreateOauthClientInput = z.input<typeof ZCreateOauthClientInput>;
