// An activity entry as one sentence, who first: "Ana Admin invited bo@x.com as viewer", "Lee paused
// campaign “Spring”", "Lee set the daily budget of Acme Coffee to USD 30.00". The thing changed is
// named by the name its entry's subject was written with (the name at the time), ids in fields by
// the names the server sent (as they are now); an action this page does not know yet still reads
// as who did what to which thing. Moments read "2026-11-27 15:04 UTC", with how long ago beside.
import { formatMoney } from "../figures";
import { describeAction, describeValue, fieldsOf, type Names } from "./describe-change";

export interface DescribedEntry {
  actor: string;
  action: string;
  subject: string;
  accountName: string | null;
  before: unknown;
  after: unknown;
  currency: string;
  names?: Names;
}

/** "Ana Admin <ana@x.com>" → "Ana Admin"; the operator (a CLI, a job) and "Tally staff" as words. */
export function actorInWords(actor: string): string {
  if (actor === "operator") return "Tally's operator";
  return actor.replace(/\s*<[^>]*>$/, "") || actor;
}

/** Things a subject names as "<kind> <name> (<id>)", at the time the change was made. */
const KINDS = ["campaign", "ad", "product", "API key", "OAuth client", "site", "export destination", "advertiser", "publisher", "network"];
const NAMED = new RegExp(`^(${KINDS.join("|")}) (.+) \\(([A-Za-z0-9_-]+)\\)$`);

/** "campaign Spring (cmp_1)" → "campaign “Spring”"; another subject without its trailing id. */
export function thingInWords(subject: string): string {
  const named = NAMED.exec(subject);
  if (named) return `${named[1]} “${named[2]}”`;
  return subject.replace(/ \([a-z]+_[A-Za-z0-9_-]+\)$/, "");
}

interface Context {
  thing: string;
  account: string;
  was: Record<string, unknown>;
  now: Record<string, unknown>;
  money: (amount: unknown) => string;
  name: (value: unknown) => string;
  subject: string;
}

const text = (value: unknown) => (typeof value === "string" ? value : String(value ?? ""));
const roleInWords = (role: unknown) => (role === "admin" ? "an admin" : role === "viewer" ? "a viewer" : text(role));

function statusChange(verbFor: Record<string, string>, c: Context): string {
  const status = text(c.now.status);
  if (status === "active") return `${c.was.status === "paused" ? "resumed" : "activated"} ${c.thing}`;
  const verb = verbFor[status];
  return verb ? `${verb} ${c.thing}` : `set ${c.thing} to ${status}`;
}
const STATUS_VERBS = { paused: "paused", ended: "ended", archived: "archived", draft: "set back to draft" };

const catalogueEntry = (subject: string) => /^SKU (.+) in the catalogue of (.+)$/.exec(subject);

/** Each known action as what its actor did, after their name. */
const PHRASES: Record<string, (c: Context) => string> = {
  "campaign.created": (c) => `created ${c.thing}`,
  "campaign.updated": (c) => `changed ${c.thing}`,
  "campaign.status.set": (c) => statusChange(STATUS_VERBS, c),
  "campaign.windows.set": (c) => `set the attribution windows of ${c.thing}`,
  "campaign.negative_term.added": (c) => `added the ${text(c.now.match)} negative term “${text(c.now.term)}” to ${c.thing}`,
  "campaign.negative_term.removed": (c) => `removed the ${text(c.was.match)} negative term “${text(c.was.term)}” from ${c.thing}`,
  "ad.created": (c) => `created ${c.thing}`,
  "ad.updated": (c) => `changed ${c.thing}`,
  "ad.status.set": (c) => statusChange(STATUS_VERBS, c),
  "account.created": (c) => `created ${c.thing}`,
  "account.wallet.topped_up": (c) =>
    `topped up the wallet of ${c.account} by ${c.money(Number(c.now.walletBalance) - Number(c.was.walletBalance))} to ${c.money(c.now.walletBalance)}`,
  "account.daily_budget.set": (c) =>
    c.now.dailyBudget === null || c.now.dailyBudget === undefined
      ? `removed the daily budget of ${c.account}`
      : `set the daily budget of ${c.account} to ${c.money(c.now.dailyBudget)}`,
  "account.time_zone.set": (c) => `changed ${c.account}'s time zone from ${text(c.was.timeZone) || "UTC"} to ${text(c.now.timeZone)}`,
  "account.site.added": (c) => `added ${c.thing} to ${c.account}`,
  "account.conversion_trust.set": (c) => `changed the conversion settings of ${c.account}`,
  "account.signing_secret.rotated": (c) => `rotated the order-signing secret of ${c.account}`,
  "api_key.created": (c) => `created ${c.thing}`,
  "api_key.revoked": (c) => `revoked ${c.thing}`,
  "oauth_client.created": (c) => `created ${c.thing}`,
  "oauth_client.rotated": (c) => `rotated the secret of ${c.thing}`,
  "oauth_client.revoked": (c) => `revoked ${c.thing}`,
  "export_destination.created": (c) => `added ${c.thing}`,
  "export_destination.updated": (c) => `changed ${c.thing}`,
  "export_destination.enabled": (c) => `${c.now.status === "disabled" ? "turned off" : "turned on"} ${c.thing}`,
  "export_destination.deleted": (c) => `deleted ${c.thing}`,
  "product.created": (c) => `added ${c.thing}`,
  "catalogue.entry.set": (c) => {
    const entry = catalogueEntry(c.subject);
    const brand = c.name(c.now.advertiserId);
    return entry ? `listed SKU ${entry[1]} as ${brand}'s in the catalogue of ${entry[2]}` : `listed ${c.subject} as ${brand}'s`;
  },
  "catalogue.entry.removed": (c) => {
    const entry = catalogueEntry(c.subject);
    return entry ? `took SKU ${entry[1]} off the catalogue of ${entry[2]}` : `removed ${c.subject}`;
  },
  "attribution.windows.set": (c) => `set the attribution windows of ${c.subject}`,
  "user.invited": (c) => `invited ${text(c.now.email)} as ${text(c.now.role)}`,
  "user.invitation.revoked": (c) => `revoked the invitation of ${text(c.was.email)}`,
  "user.joined": (c) => `joined ${c.account} as ${roleInWords(c.now.role)}`,
  "user.role.set": (c) => `made ${c.subject.replace(/^user /, "")} ${roleInWords(c.now.role)}`,
  "user.removed": (c) => `removed ${text(c.was.email)} from ${c.was.role === "staff" ? "Tally's staff" : c.account}`,
  "user.created": (c) => `created staff user ${text(c.now.email)}`,
};

/** The entry as one sentence, who first. */
export function describeEntry(entry: DescribedEntry): string {
  const names = entry.names ?? {};
  const context: Context = {
    thing: thingInWords(entry.subject),
    account: entry.accountName ?? "the account",
    was: fieldsOf(entry.before),
    now: fieldsOf(entry.after),
    money: (amount) => (typeof amount === "number" && Number.isFinite(amount) ? formatMoney(amount, entry.currency) : "—"),
    name: (value) => describeValue("", value, names),
    subject: entry.subject,
  };
  const phrase = PHRASES[entry.action];
  const what = phrase ? phrase(context) : `made a change (${describeAction(entry.action)}) to ${context.thing}`;
  return `${actorInWords(entry.actor)} ${what}`;
}

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Number.POSITIVE_INFINITY],
];

/** "5 minutes ago", "yesterday", "3 months ago": how long before `now`, in the largest whole unit. */
export function howLongAgo(at: Date, now = new Date()): string {
  let amount = (at.getTime() - now.getTime()) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) return relative.format(Math.round(amount), unit);
    amount /= size;
  }
  return relative.format(Math.round(amount), "year");
}
