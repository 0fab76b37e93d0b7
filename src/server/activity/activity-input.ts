// The activity log's filters, shared by the server and the dashboard (whose page keeps them in
// its address): zod only.
import { z } from "zod";

/** The kinds of change the log's filter offers: each the start of the actions it covers (docs/activity.md). */
export const ACTIVITY_KINDS = {
  "campaign.": "Campaigns",
  "ad.": "Ads",
  "account.": "Accounts, wallets and settings",
  "api_key.": "API keys",
  "oauth_client.": "OAuth clients",
  "export_destination.": "Export destinations",
  "product.": "Products",
  "catalogue.": "Catalogues",
  "attribution.": "Attribution windows",
  "user.": "Users",
} as const;
export type ActivityKind = keyof typeof ACTIVITY_KINDS;

const text = z.string().trim().max(200).optional();

export const ZListActivityInput = z.object({
  accountId: z.string().min(1).max(64).optional(),
  campaignId: z.string().min(1).max(256).optional(),
  /** The start of the actions' names: a kind above, or one action. */
  actionPrefix: z
    .string()
    .trim()
    .max(100)
    .regex(/^[a-z_.]*$/, "must be an action's name or its start")
    .optional(),
  /** Part of who made the change: a name or an e-mail. */
  actorQuery: text,
  /** Part of what was changed: a name or an id. */
  text,
  /** The page's cursor: entries older than this id (the `next` of the page before). */
  cursor: z
    .string()
    .regex(/^\d{1,19}$/)
    .nullish(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type TListActivityInput = z.input<typeof ZListActivityInput>;
