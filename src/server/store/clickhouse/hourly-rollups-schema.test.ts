// Migration 8's text for a single server and for a cluster: the single-server statements run in
// every ClickHouse test; no cluster runs here, so its statements are checked as text, as
// schema.test.ts checks the other migrations'.
import { describe, expect, it } from "vitest";
import { statements } from "./migrations/0008-hourly-rollups.sql";
import { schemaOf } from "./schema";

describe("migration 8 (hourly rollups)", () => {
  it("on one server: report_zones replacing by version, both hourly tables deduplicating, views joining each zone's latest version", () => {
    const list = statements(schemaOf({ deduplicationWindow: 500 }));
    const text = list.join("\n");
    expect(text).not.toMatch(/ON CLUSTER|Replicated|Distributed|_local/);
    expect(list[0]).toMatch(
      /^CREATE TABLE IF NOT EXISTS report_zones \(\n {2}zone String, since DateTime64\(3, 'UTC'\), hours_since DateTime64\(3, 'UTC'\), version UInt64\n\) ENGINE = ReplacingMergeTree\(version\) ORDER BY zone$/,
    );
    expect(text.match(/non_replicated_deduplication_window = 500/g)).toHaveLength(2);
    const views = list.filter((statement) => statement.startsWith("CREATE MATERIALIZED VIEW"));
    expect(views.map((view) => /VIEW IF NOT EXISTS (\w+) TO (\w+)/.exec(view)?.slice(1).join(" → "))).toEqual([
      "ad_events_to_hourly_rollups → hourly_rollups",
      "attributions_to_hourly_rollups → hourly_rollups",
      "attributions_to_hourly_order_rollups → hourly_order_rollups",
      "attributions_to_hourly_converted_clicks → hourly_order_rollups",
    ]);
    for (const view of views) {
      expect(view).toContain("CROSS JOIN (SELECT zone, argMax(hours_since, version) AS hours_since FROM report_zones GROUP BY zone) AS z");
      expect(view).toMatch(/formatDateTime\(r\.(created_at|placed_at|event_created_at), '%F', z\.zone\)/);
    }
    // The zones' hours move before any view counts, and only while the first view is missing.
    const raise = list.findIndex((statement) => statement.includes("toStartOfHour(now() + INTERVAL 1 MINUTE) + INTERVAL 1 HOUR"));
    expect(raise).toBeGreaterThan(0);
    expect(list[raise]).toContain("name = 'ad_events_to_hourly_rollups'");
    expect(raise).toBeLessThan(list.indexOf(views[0]!));
  });

  it("on a cluster: report_zones and the hourly tables Replicated on each node, Distributed hourly tables, views over the local tables", () => {
    const list = statements(schemaOf({ cluster: "tally", deduplicationWindow: 500 }));
    const text = list.join("\n");
    expect(list[0]).toContain(
      "CREATE TABLE IF NOT EXISTS report_zones_local ON CLUSTER tally (\n  zone String, since DateTime64(3, 'UTC'), hours_since DateTime64(3, 'UTC'), version UInt64\n) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/report_zones_local', '{replica}', version) ORDER BY zone",
    );
    for (const table of ["hourly_rollups", "hourly_order_rollups"]) {
      expect(text).toContain(`CREATE TABLE IF NOT EXISTS ${table}_local ON CLUSTER tally`);
      expect(text).toContain(`ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/${table}_local', '{replica}')`);
      expect(text).toMatch(
        new RegExp(
          `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER tally AS ${table}_local\\s+ENGINE = Distributed\\(tally, currentDatabase\\(\\), ${table}_local, cityHash64\\(advertiser_id\\)\\)`,
        ),
      );
    }
    expect(text.match(/ replicated_deduplication_window = 500/g)).toHaveLength(2);
    expect(text).toMatch(
      /ad_events_to_hourly_rollups ON CLUSTER tally TO hourly_rollups_local AS[\s\S]*FROM ad_events_local AS r CROSS JOIN \(SELECT zone, argMax\(hours_since, version\) AS hours_since FROM report_zones_local/,
    );
    expect(text).toMatch(/attributions_to_hourly_order_rollups ON CLUSTER tally TO hourly_order_rollups_local AS[\s\S]*FROM attributions_local AS r/);
    expect(text).not.toMatch(/non_replicated/);
  });
});
