// The names of the things an entry's fields point at by id (a campaign's publishers, its products,
// a catalogue entry's brand, a network), so the log reads "Publishers: Demo Market" rather than
// "pub_demo_market". These are the names as they are now: the entries kept only the ids, and a
// thing renamed since reads by its new name. The entry's subject keeps the name it had when the
// change was made (written then, in words). An id that names nothing (a SKU, a thing since
// deleted) is left as it is.
import { db } from "@/server/db/client";

/** What an id of a named thing looks like: an account's, a campaign's, an ad's or a product's. */
const NAMED_ID = /^(adv|pub|net|cmp|ad|prd)_[A-Za-z0-9_-]{1,100}$/;

function idsIn(value: unknown, into: Set<string>): void {
  if (typeof value === "string") {
    if (NAMED_ID.test(value)) into.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) idsIn(item, into);
  } else if (value && typeof value === "object") {
    for (const item of Object.values(value)) idsIn(item, into);
  }
}

/** The ids an entry's before and after hold that may name something. */
export function namedIdsOf(entry: { before: unknown; after: unknown }): string[] {
  const ids = new Set<string>();
  idsIn(entry.before, ids);
  idsIn(entry.after, ids);
  return [...ids];
}

/** Each id's name, for the ids that name an account, a campaign, an ad or a product; one query per table. */
export async function namesOfIds(ids: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (ids.length === 0) return names;
  const where = { id: { in: ids } };
  const select = { id: true, name: true } as const;
  const found = await Promise.all([
    db.account.findMany({ where, select }),
    db.campaign.findMany({ where, select }),
    db.ad.findMany({ where, select }),
    db.product.findMany({ where, select }),
  ]);
  for (const row of found.flat()) names.set(row.id, row.name);
  return names;
}
