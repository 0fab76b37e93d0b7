// The activity log's changed fields in words: each as "Label: before → after", money as "USD 1,234.50"
// in its account's currency, lists joined, empty values as "—", moments as every screen writes
// them in the viewer's zone, "2026-11-27 12:04 UTC−03:00" (figures.tsx minuteIn), and ids as the names of what they point at (the server sends them beside
// the entry); docs/activity.md names every action and field. The sentence a whole entry reads as
// is describe-entry.ts.
import { UTC } from "@/server/core/time-zones";
import { formatMoney, minuteIn } from "../figures";

const ACTIONS: Record<string, string> = {
  "account.created": "Account created",
  "account.wallet.topped_up": "Wallet topped up",
  "account.daily_budget.set": "Account daily budget set",
  "account.time_zone.set": "Account time zone set",
  "account.site.added": "Site added",
  "account.conversion_trust.set": "Conversion settings changed",
  "account.signing_secret.rotated": "Signing secret rotated",
  "campaign.created": "Campaign created",
  "campaign.updated": "Campaign changed",
  "campaign.status.set": "Campaign status set",
  "campaign.windows.set": "Campaign windows set",
  "ad.created": "Ad created",
  "ad.updated": "Ad changed",
  "ad.status.set": "Ad status set",
  "api_key.created": "API key created",
  "api_key.revoked": "API key revoked",
  "oauth_client.created": "OAuth client created",
  "oauth_client.rotated": "OAuth secret rotated",
  "oauth_client.revoked": "OAuth client revoked",
  "export_destination.created": "Export destination created",
  "export_destination.updated": "Export destination changed",
  "export_destination.enabled": "Export destination enabled",
  "export_destination.deleted": "Export destination deleted",
  "product.created": "Product created",
  "catalogue.entry.set": "Catalogue SKU set",
  "catalogue.entry.removed": "Catalogue SKU removed",
  "attribution.windows.set": "Attribution windows set",
  "user.invited": "User invited",
  "user.invitation.revoked": "Invitation revoked",
  "user.joined": "User joined",
  "user.role.set": "User role set",
  "user.removed": "User removed",
  "user.created": "Staff user created",
};

/** An action's name in words; an action this page does not know yet reads as its dotted name. */
export const describeAction = (action: string) => ACTIONS[action] ?? action;

const MONEY_FIELDS = new Set(["bid", "dailyBudget", "walletBalance", "maxOrderTotal", "price"]);

const LABELS: Record<string, string> = {
  dailyBudget: "Daily budget",
  timeZone: "Time zone",
  walletBalance: "Wallet balance",
  bidModel: "Bid model",
  startDate: "Start date",
  endDate: "End date",
  publisherIds: "Publishers",
  productRefs: "Products",
  mediaUrl: "Media",
  destinationUrl: "Destination",
  // Entries logged before orders without proof stopped being credited by default keep their label.
  requireVerified: "Verified orders only",
  creditUnverified: "Credit orders without proof",
  maxOrderTotal: "Largest order total",
  maxLineQuantity: "Largest line quantity",
  previousSecret: "Previous secret",
  revokedAt: "Revoked",
  clickDays: "Click window (days)",
  viewDays: "View window (days)",
  viewThrough: "View-through credit",
  forcePathStyle: "Path-style addresses",
  credentialKind: "Credentials",
  roleArn: "Role",
  accessKey: "Access key",
  writeSuccessMarker: "Success marker",
  aggregateLayout: "Aggregate layout",
  advertiserId: "Brand",
  productId: "Product id",
  networkId: "Network",
  sku: "SKU",
  email: "E-mail",
  expiresAt: "Expires",
  userId: "User",
};

/** "dailyBudget" → "Daily budget" where named above, else the name's words. */
export const fieldLabel = (field: string) =>
  LABELS[field] ??
  field
    .replace(/([A-Z])/g, " $1")
    .replace(/^./, (first) => first.toUpperCase())
    .replace(/ ([A-Z])/g, (_all, c: string) => ` ${c.toLowerCase()}`);

/** An ISO moment as entries store them (2026-11-27T15:04:05.123Z), anywhere in a value. */
const ISO_MOMENT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g;

/** Every ISO moment in a text as a minute in `zone`: "2026-11-27 15:04 UTC", "2026-11-27 12:04 UTC−03:00". */
export const momentsInWords = (text: string, zone: string = UTC) => text.replace(ISO_MOMENT, (moment) => minuteIn(new Date(moment), zone));

/** The names the server sent beside an entry, by id (src/server/activity/activity-names.ts). */
export type Names = Record<string, string>;

/** A changed field's value in words; money as every screen writes it, "USD 1,234.50" (figures.tsx). */
export function describeValue(field: string, value: unknown, names: Names = {}, currency: string | null = null, zone: string = UTC): string {
  if (value === null || value === undefined || value === "") return "—";
  if (MONEY_FIELDS.has(field) && typeof value === "number") return formatMoney(value, currency);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map((item) => describeValue(field, item, names, currency, zone)).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "string") return names[value] ?? momentsInWords(value, zone);
  return String(value);
}

const FIELD_ORDER = [
  "kind",
  "name",
  "email",
  "role",
  "type",
  "status",
  "startDate",
  "endDate",
  "bidModel",
  "bid",
  "dailyBudget",
  "walletBalance",
  "size",
  "mediaUrl",
  "destinationUrl",
  "publisherIds",
  "productRefs",
];

export const fieldsOf = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/**
 * One line per changed field: "Daily budget: USD 50.00 → USD 80.00"; a made thing's fields
 * ("— → value" would say nothing more) read "Name: Spring", a deleted one's "Name: Spring (removed)".
 * Moments in `zone` (the screen's; the files' are UTC).
 */
export function describeChange(before: unknown, after: unknown, currency: string, names: Names = {}, zone: string = UTC): string[] {
  const was = fieldsOf(before);
  const now = fieldsOf(after);
  // Postgres keeps JSON keys in its own order (shortest first): shown in the forms' order instead.
  const rank = (field: string) => (FIELD_ORDER.indexOf(field) + FIELD_ORDER.length + 1) % (FIELD_ORDER.length + 1);
  const fields = [...new Set([...Object.keys(was), ...Object.keys(now)])].sort((a, b) => rank(a) - rank(b));
  return fields.map((field) => {
    const label = fieldLabel(field);
    const value = (v: unknown) => describeValue(field, v, names, currency, zone);
    if (before === null || before === undefined) return `${label}: ${value(now[field])}`;
    if (after === null || after === undefined) return `${label}: ${value(was[field])} (removed)`;
    return `${label}: ${value(was[field])} → ${value(now[field])}`;
  });
}
