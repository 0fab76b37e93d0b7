// Distinct orders as order keys (migration 11) against the order states and a count made here:
// generated attribution lines (orders of several lines and ads, halo, unverified, uncredited,
// new-to-brand lines, clicks credited by several orders) give every figure per day and ad alike in
// the keys, the states and the count below, in UTC and in a kept zone (its local day from
// Intl.DateTimeFormat); migration 11 run again counts the attributions already held and changes
// nothing; a read reaching before the keys' first day reads the states; the rollup check finds a
// key nobody placed, and a rebuild removes it.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { store } from "@/server/store";
import { insertRows, runCommand, selectRows } from "./client";
import { applyMigration, currentSchema, MIGRATIONS } from "./migrate.sql";
import { keyCount, ORDER_FIGURES, type OrderFigure } from "./order-keys.sql";
import { keyedFigures } from "./report-totals.ch.sql";
import { forgetOrderKeysSince } from "./zoned-source.sql";

const ZONE = "America/Sao_Paulo";
const ADVERTISERS = ["adv-keys-1", "adv-keys-2"];
const ADS = ["ad-k1", "ad-k2", "ad-k3"];

/** A seeded generator (mulberry32), so a failure shows the same lines again. */
function generator(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Line {
  conversion_id: string;
  event_id: string;
  event_kind: "click" | "view";
  ad_id: string;
  advertiser_id: string;
  match: "sku" | "halo";
  verified: boolean;
  credited: boolean;
  new_to_brand: boolean;
  placed_at: string;
  event_created_at: string;
}

function generateLines(): Line[] {
  const random = generator(43);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const clicks = Array.from({ length: 25 }, (_, n) => ({
    id: randomUUID(),
    at: new Date(Date.UTC(2026, 10, 8, 0, 0) + Math.floor(random() * 6 * 24 * 60) * 60_000 + n).toISOString(),
  }));
  const lines: Line[] = [];
  for (let order = 0; order < 80; order++) {
    const conversion = randomUUID();
    // Orders placed around local midnights in São Paulo (03:00 UTC) and UTC's, over a week.
    const placed = new Date(Date.UTC(2026, 10, 9 + Math.floor(random() * 6), pick([0, 2, 3, 4, 23]), Math.floor(random() * 60)));
    const verified = random() < 0.8;
    for (let line = 0, lines_ = 1 + Math.floor(random() * 3); line < lines_; line++) {
      const click = random() < 0.6 ? pick(clicks) : null;
      const touch = click && click.at < placed.toISOString() ? click : { id: randomUUID(), at: new Date(placed.getTime() - 3_600_000).toISOString() };
      lines.push({
        conversion_id: conversion,
        event_id: touch.id,
        event_kind: touch === click ? "click" : "view",
        ad_id: pick(ADS),
        advertiser_id: pick(ADVERTISERS),
        match: random() < 0.2 ? "halo" : "sku",
        verified,
        credited: random() < 0.75,
        new_to_brand: random() < 0.3,
        placed_at: placed.toISOString(),
        event_created_at: touch.at,
      });
    }
  }
  return lines;
}

function attribution(line: Line, position: number) {
  return {
    ...line,
    conversion_received_at: line.placed_at,
    item_position: position,
    publisher_id: "pub-keys",
    order_id: `o-${line.conversion_id}`,
    session_id: "s",
    user_id: "u",
    product_sku: "sku-1",
    campaign_id: `cmp-${line.ad_id}`,
    request_id: "r",
    ad_size: null,
    ad_type: "product",
    placement_name: "search-top",
    context: "search",
    site: "shop.example",
    price_micros: 1_000_000,
    promotional_price_micros: 0,
    quantity: 1,
    total_value_micros: 1_000_000,
    created_at: line.placed_at,
    batch_id: 1,
  };
}

const localDay = (at: string, zone: string) =>
  new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(at));

/** Each figure per day and ad, counted here from the lines: "day|ad" → figure → count. */
function countedHere(lines: readonly Line[], zone: string): Map<string, Record<OrderFigure, number>> {
  const sets = new Map<string, Record<OrderFigure, Set<string>>>();
  const add = (day: string, ad: string, figure: OrderFigure, id: string) => {
    const key = `${day}|${ad}`;
    if (!sets.has(key)) sets.set(key, Object.fromEntries(ORDER_FIGURES.map((f) => [f, new Set<string>()])) as Record<OrderFigure, Set<string>>);
    sets.get(key)![figure].add(id);
  };
  for (const line of lines) {
    const day = localDay(line.placed_at, zone);
    const sku = line.match === "sku";
    const credited = sku && line.credited;
    if (credited) add(day, line.ad_id, "conversions", line.conversion_id);
    if (sku && !line.verified) add(day, line.ad_id, "unverified_conversions", line.conversion_id);
    if (sku && !line.credited) add(day, line.ad_id, "uncredited_conversions", line.conversion_id);
    if (credited && line.event_kind === "click") {
      add(day, line.ad_id, "conversions_click", line.conversion_id);
      add(localDay(line.event_created_at, zone), line.ad_id, "converted_clicks", line.event_id);
    }
    if (line.match === "halo" && line.credited) add(day, line.ad_id, "halo_conversions", line.conversion_id);
    if (credited && line.new_to_brand) add(day, line.ad_id, "ntb_conversions", line.conversion_id);
  }
  const counts = new Map<string, Record<OrderFigure, number>>();
  for (const [key, figures] of sets) counts.set(key, Object.fromEntries(ORDER_FIGURES.map((f) => [f, figures[f].size])) as Record<OrderFigure, number>);
  return counts;
}

/** Each figure per day and ad from `table` (states merged, or keys counted), with no all-zero row. */
async function stored(table: "order_rollups" | "order_keys" | "zoned_order_rollups" | "zoned_order_keys"): Promise<Map<string, Record<OrderFigure, number>>> {
  const keys = table.endsWith("keys");
  const figures = ORDER_FIGURES.map((figure) => `${keys ? keyCount(figure, "r") : `uniqExactMerge(r.${figure})`} AS ${figure}`);
  const zone = table.startsWith("zoned") ? "WHERE r.zone = {zone:String}" : "";
  const rows = await selectRows<Record<string, string>>(
    `SELECT toString(r.day) AS day, r.ad_id AS ad, ${figures.join(", ")} FROM ${table} AS r ${zone} GROUP BY day, ad ORDER BY day, ad`,
    { zone: ZONE },
  );
  const counts = new Map<string, Record<OrderFigure, number>>();
  for (const row of rows) {
    const figures = Object.fromEntries(ORDER_FIGURES.map((f) => [f, Number(row[f])])) as Record<OrderFigure, number>;
    if (Object.values(figures).some((n) => n > 0)) counts.set(`${row.day}|${row.ad}`, figures);
  }
  return counts;
}

const sorted = (counts: Map<string, Record<OrderFigure, number>>) => [...counts.entries()].sort(([a], [b]) => a.localeCompare(b));

let lines: Line[];

beforeAll(async () => {
  await insertRows("report_zones", [{ zone: ZONE, since: "2026-11-01 00:00:00.000", hours_since: "2026-11-01 00:00:00.000", version: 1 }], "");
  lines = generateLines();
  await insertRows(
    "attributions",
    lines.map((line, position) => attribution(line, position)),
    "",
  );
});

describe("distinct orders as order keys", () => {
  it("count every figure per day and ad as the order states do and as the lines count by hand, in UTC and in a kept zone", async () => {
    const utc = sorted(countedHere(lines, "UTC"));
    expect(utc.length).toBeGreaterThan(10);
    // Each figure is somewhere not zero, or the comparison would prove little.
    for (const figure of ORDER_FIGURES)
      expect(
        utc.some(([, figures]) => figures[figure] > 0),
        figure,
      ).toBe(true);
    expect(sorted(await stored("order_keys"))).toEqual(utc);
    expect(sorted(await stored("order_rollups"))).toEqual(utc);
    const zoned = sorted(countedHere(lines, ZONE));
    expect(zoned).not.toEqual(utc);
    expect(sorted(await stored("zoned_order_keys"))).toEqual(zoned);
    expect(sorted(await stored("zoned_order_rollups"))).toEqual(zoned);
  });

  it("are counted from the attributions already held by migration 11, which changes nothing when it runs again", async () => {
    const before = { utc: sorted(await stored("order_keys")), zoned: sorted(await stored("zoned_order_keys")) };
    await runCommand("TRUNCATE TABLE order_keys");
    await runCommand("TRUNCATE TABLE zoned_order_keys");
    const migration = MIGRATIONS.find(({ version }) => version === 11)!;
    await applyMigration(migration, currentSchema());
    expect({ utc: sorted(await stored("order_keys")), zoned: sorted(await stored("zoned_order_keys")) }).toEqual(before);
    await applyMigration(migration, currentSchema());
    expect({ utc: sorted(await stored("order_keys")), zoned: sorted(await stored("zoned_order_keys")) }).toEqual(before);
    // Its first day is written once: no TTL here, so every day is held.
    expect(await selectRows("SELECT toString(since) AS since, version FROM order_keys_start")).toEqual([{ since: "1970-01-01", version: "1" }]);
  });

  it("serve a read from their first day on, and the states a read reaching before it", async () => {
    const advertiser = ADVERTISERS[0]!;
    const read = (startDate: string) =>
      keyedFigures("advertiser_id", { range: { startDate, endDate: "2026-11-30" }, zone: "UTC", where: [["advertiser_id", advertiser]] });
    const truth = (await read("2026-11-12"))[0]!;
    // A key nobody placed, on a day after the first: only a read of the keys counts it.
    await insertRows(
      "order_keys",
      [
        {
          day: "2026-11-13",
          publisher_id: "pub-keys",
          site: "shop.example",
          advertiser_id: advertiser,
          campaign_id: "cmp-ad-k1",
          ad_id: "ad-k1",
          placement_name: "search-top",
          id: randomUUID(),
          flags: 1,
        },
      ],
      "",
    );
    try {
      await insertRows("order_keys_start", [{ since: "2026-11-12", version: 2 }], "");
      forgetOrderKeysSince();
      expect((await read("2026-11-12"))[0]!.conversions).toBe(String(Number(truth.conversions) + 1));
      // Reaching the 11th, the read takes the states, which hold no such order: the lines' own count.
      const byHand = new Set(
        lines
          .filter((line) => line.advertiser_id === advertiser && line.match === "sku" && line.credited && line.placed_at >= "2026-11-11")
          .map((line) => line.conversion_id),
      );
      expect((await read("2026-11-11"))[0]!.conversions).toBe(String(byHand.size));
    } finally {
      await insertRows("order_keys_start", [{ since: "1970-01-01", version: 3 }], "");
      forgetOrderKeysSince();
    }
  });

  it("are checked against the attributions, and a rebuild takes out a key nobody placed", async () => {
    const differences = await store().rollups.verify("2026-11-01", "2026-11-30");
    expect(differences).toEqual([
      expect.objectContaining({ table: "order_keys", day: "2026-11-13", ad_id: "ad-k1", measure: "conversions", recounted: expect.any(String) }),
    ]);
    const [difference] = differences;
    expect(Number(difference!.stored)).toBe(Number(difference!.recounted) + 1);
    await store().rollups.rebuild("2026-11-13", "2026-11-13");
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
    expect(sorted(await stored("order_keys"))).toEqual(sorted(countedHere(lines, "UTC")));
  });
});
