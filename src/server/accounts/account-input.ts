// The account forms' schemas, shared by the server and the dashboard: zod only.
import { z } from "zod";
import { MAX_DAILY_BUDGET, MAX_WALLET_BALANCE } from "@/server/core/money";
import { AccountKind } from "@/server/db/generated/enums";

const site = z.object({ name: z.string().trim().min(1, "is required").max(200), domain: z.string().trim().max(253).optional() });

export const ZCreateAccountInput = z.object({
  id: z.string().min(1).max(64).optional(),
  kind: z.enum(AccountKind),
  name: z.string().trim().min(1, "is required").max(200),
  currency: z.string().length(3, "is a 3-letter code such as USD").toUpperCase().default("USD"),
  sellerId: z.string().trim().min(1).max(100).optional(),
  walletBalance: z
    .number({ message: "must be a number" })
    .min(0, "cannot be negative")
    .max(MAX_WALLET_BALANCE, `may hold at most ${MAX_WALLET_BALANCE.toLocaleString("en")}`)
    .optional(),
  dailyBudget: z
    .number({ message: "must be a number" })
    .positive("must be above 0")
    .max(MAX_DAILY_BUDGET, `must be at most ${MAX_DAILY_BUDGET.toLocaleString("en")}`)
    .optional(),
  networkId: z.string().min(1).optional(),
  sites: z.array(site).default([]),
});
export type TCreateAccountInput = z.input<typeof ZCreateAccountInput>;

export const ZTopUpInput = z.object({
  accountId: z.string().min(1),
  amount: z.number({ message: "must be a number" }).positive("must be above 0").max(10_000_000),
  /** The dashboard's id for one top-up (a UUID made when the form asks to confirm): sent twice, it tops up once. */
  requestId: z.string().min(8).max(100).optional(),
});
export const ZDailyBudgetInput = z.object({
  accountId: z.string().min(1),
  dailyBudget: z
    .number({ message: "must be a number" })
    .positive("must be above 0")
    .max(MAX_DAILY_BUDGET, `must be at most ${MAX_DAILY_BUDGET.toLocaleString("en")}`)
    .nullable(),
});
export const ZAddSiteInput = z.object({ accountId: z.string().min(1) }).and(site);
/** An account's time zone: an IANA name, checked and made canonical by the server (account-time-zone.ts). */
export const ZTimeZoneInput = z.object({
  accountId: z.string().min(1),
  timeZone: z.string().trim().min(1, "is required: name a zone such as America/Sao_Paulo").max(64, "is too long for a time zone"),
});
