// The one text of ClickHouse's schema for a single server and for a cluster: no server of either
// kind runs here, so the cluster's statements are checked as text (the single-server ones run in
// every ClickHouse test).
import { describe, expect, it } from "vitest";
import { statements } from "./migrations/0001-settled-events.sql";
import { statements as orderRollupStatements } from "./migrations/0002-order-rollups.sql";
import { statements as projectionStatements } from "./migrations/0003-publisher-projections.sql";
import { alone as clickCreditAlone, statements as clickCreditStatements } from "./migrations/0004-click-credit.sql";
import * as haloCredit from "./migrations/0005-halo-credit.sql";
import * as newToBrand from "./migrations/0006-new-to-brand.sql";
import * as zonedRollups from "./migrations/0007-zoned-rollups.sql";
import * as searchTerms from "./migrations/0009-search-terms.sql";
import * as zoneProjections from "./migrations/0010-zone-projections.sql";
import * as orderKeys from "./migrations/0011-order-keys.sql";
import { schemaOf } from "./schema";

describe("ClickHouse's schema", () => {
  it("on one server: plain MergeTree engines, the deduplication window on every table a token reaches, no Distributed table", () => {
    const text = statements(schemaOf({ deduplicationWindow: 500 })).join("\n");
    expect(text).not.toMatch(/ON CLUSTER|Replicated|Distributed|_local/);
    expect(text.match(/non_replicated_deduplication_window = 500/g)).toHaveLength(3);
    expect(text).toMatch(/CREATE MATERIALIZED VIEW IF NOT EXISTS ad_events_to_rollups TO report_rollups/);
  });

  it("on a cluster: Replicated engines ON CLUSTER on local tables, Distributed tables over them, views writing the local rollups", () => {
    const list = statements(schemaOf({ cluster: "tally", deduplicationWindow: 500 }));
    const text = list.join("\n");
    for (const table of ["ad_events", "attributions", "report_rollups"]) {
      expect(text).toContain(`CREATE TABLE IF NOT EXISTS ${table}_local ON CLUSTER tally`);
      expect(text).toMatch(
        new RegExp(
          `CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER tally AS ${table}_local\\s+ENGINE = Distributed\\(tally, currentDatabase\\(\\), ${table}_local, cityHash64\\(advertiser_id\\)\\)`,
        ),
      );
    }
    expect(text).toContain("ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/report_rollups_local', '{replica}')");
    expect(text.match(/replicated_deduplication_window = 500/g)).toHaveLength(3);
    expect(text).toMatch(/ad_events_to_rollups ON CLUSTER tally TO report_rollups_local AS[\s\S]*FROM ad_events_local/);
    expect(text).not.toMatch(/non_replicated/);
  });

  it("moves the order states to order_rollups on a cluster: its local table, Distributed table and view, and the states dropped from both report_rollups tables", () => {
    const list = orderRollupStatements(schemaOf({ cluster: "tally", deduplicationWindow: 500 }));
    const text = list.join("\n");
    expect(text).toContain("CREATE TABLE IF NOT EXISTS order_rollups_local ON CLUSTER tally");
    expect(text).toContain("ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/order_rollups_local', '{replica}')");
    expect(text).toMatch(/replicated_deduplication_window = 500/);
    expect(text).toMatch(/CREATE TABLE IF NOT EXISTS order_rollups ON CLUSTER tally AS order_rollups_local\s+ENGINE = Distributed/);
    expect(text).toMatch(/attributions_to_order_rollups ON CLUSTER tally TO order_rollups_local AS[\s\S]*FROM attributions_local/);
    expect(text).toMatch(/ALTER TABLE attributions_to_rollups ON CLUSTER tally MODIFY QUERY[\s\S]*FROM attributions_local/);
    // The view stops writing the states before the columns go.
    const modify = list.findIndex((statement) => statement.includes("MODIFY QUERY"));
    const drops = list.flatMap((statement, index) => (statement.includes("DROP COLUMN") ? [{ statement, index }] : []));
    expect(drops.map(({ statement }) => statement.match(/ALTER TABLE (\S+) ON CLUSTER tally/)?.[1])).toEqual(["report_rollups_local", "report_rollups"]);
    expect(drops.every(({ index }) => index > modify)).toBe(true);
    expect(text).not.toMatch(/non_replicated/);
  });

  it("adds the publisher projection to each node's local rollup tables on a cluster, and waits for it to be built", () => {
    const list = projectionStatements(schemaOf({ cluster: "tally", deduplicationWindow: 500 }));
    for (const table of ["report_rollups_local", "order_rollups_local"]) {
      const own = list.filter((statement) => statement.startsWith(`ALTER TABLE ${table} ON CLUSTER tally `));
      expect(own.map((statement) => /PROJECTION IF NOT EXISTS (\w+)|MATERIALIZE PROJECTION (\w+)/.exec(statement)?.slice(1).find(Boolean))).toEqual([
        undefined,
        "publisher_days",
        "publisher_days",
      ]);
      expect(own.filter((statement) => statement.includes("MATERIALIZE")).every((statement) => statement.includes("mutations_sync = 2"))).toBe(true);
    }
    expect(list.join("\n")).not.toMatch(/ALTER TABLE (report|order)_rollups ON/);
  });

  it("adds the click credit columns to the local and Distributed rollup tables on a cluster, views writing the local tables, history and projections after them", () => {
    const list = clickCreditStatements(schemaOf({ cluster: "tally", deduplicationWindow: 500 }));
    const text = list.join("\n");
    const added = list.flatMap((statement) => /^ALTER TABLE (\S+) ON CLUSTER tally ADD COLUMN/.exec(statement)?.[1] ?? []);
    expect(added).toEqual(["report_rollups_local", "report_rollups", "order_rollups_local", "order_rollups"]);
    expect(text).toMatch(/ALTER TABLE attributions_to_rollups ON CLUSTER tally MODIFY QUERY[\s\S]*units_sold_micros[\s\S]*FROM attributions_local/);
    expect(text).toMatch(/ALTER TABLE attributions_to_order_rollups ON CLUSTER tally MODIFY QUERY[\s\S]*conversions_click[\s\S]*FROM attributions_local/);
    expect(text).toMatch(
      /attributions_to_converted_clicks ON CLUSTER tally TO order_rollups_local AS\s+SELECT toDate\(event_created_at\) AS day[\s\S]*FROM attributions_local/,
    );
    // The history goes through the Distributed tables, once the views count what arrives.
    const history = list.flatMap((statement, index) => (statement.startsWith("INSERT") ? [index] : []));
    expect(history).toHaveLength(2);
    expect(history.every((index) => list[index]!.includes("FROM attributions\n") && list[index]!.includes("distributed_foreground_insert = 1"))).toBe(true);
    const lastView = list.findIndex((statement) => statement.includes("CREATE MATERIALIZED VIEW"));
    expect(history.every((index) => index > lastView)).toBe(true);
    for (const table of ["report_rollups_local", "order_rollups_local"]) {
      const own = list.filter((statement) => statement.startsWith(`ALTER TABLE ${table} ON CLUSTER tally `) && statement.includes("PROJECTION"));
      expect(own.map((statement) => /(DROP|ADD|MATERIALIZE) PROJECTION/.exec(statement)?.[1])).toEqual(["DROP", "ADD", "MATERIALIZE"]);
    }
    expect(text).toMatch(/ADD PROJECTION IF NOT EXISTS publisher_days[\s\S]*sum\(units_sold_micros\)/);
    expect(text).toMatch(/ADD PROJECTION IF NOT EXISTS publisher_days[\s\S]*uniqExactMerge\(converted_clicks\)/);
    const fill = clickCreditAlone.statements(schemaOf({ cluster: "tally", deduplicationWindow: 500 })).join("\n");
    expect(fill).toMatch(/INSERT INTO report_rollups \(/);
    expect(fill).toContain("insert_deduplicate = 0");
    expect(text + fill).not.toMatch(/non_replicated/);
  });

  it("adds match to both attributions tables and the halo columns to both rollup tables on a cluster, every view reading sku lines, no history, projections after them", () => {
    const list = haloCredit.statements(schemaOf({ cluster: "tally", deduplicationWindow: 500 }));
    const text = list.join("\n");
    const added = list.flatMap(
      (statement) => /^ALTER TABLE (\S+) ON CLUSTER tally ADD COLUMN IF NOT EXISTS (\w+)/.exec(statement)?.slice(1, 3).join(" ") ?? [],
    );
    expect(added).toEqual([
      "attributions_local match",
      "attributions match",
      "report_rollups_local halo_sales_revenue_micros",
      "report_rollups halo_sales_revenue_micros",
      "order_rollups_local halo_conversions",
      "order_rollups halo_conversions",
    ]);
    expect(text).toContain("match LowCardinality(String) DEFAULT 'sku'");
    const views = list.filter((statement) => statement.includes("MODIFY QUERY"));
    expect(views.map((statement) => /^ALTER TABLE (\w+) ON CLUSTER tally MODIFY QUERY/.exec(statement)?.[1])).toEqual([
      "attributions_to_rollups",
      "attributions_to_order_rollups",
      "attributions_to_converted_clicks",
    ]);
    for (const view of views) {
      expect(view).toMatch(/FROM attributions_local\s/);
      // Every condition on the lines (each -If aggregate's, the WHERE) asks their match too.
      expect(view.match(/match = '(sku|halo)' AND /g)?.length).toBe(view.match(/If\(|WHERE/g)?.length);
    }
    expect(views[0]).toMatch(/sumIf\(toInt128\(total_value_micros\), match = 'halo' AND credited\) AS halo_sales_revenue_micros/);
    expect(views[1]).toMatch(/uniqExactStateIf\(conversion_id, match = 'halo' AND credited\) AS halo_conversions/);
    expect(text).not.toMatch(/INSERT/);
    expect(haloCredit).not.toHaveProperty("alone");
    const lastView = list.findIndex((statement) => statement.includes("attributions_to_converted_clicks"));
    for (const table of ["report_rollups_local", "order_rollups_local"]) {
      const own = list.flatMap((statement, index) =>
        statement.startsWith(`ALTER TABLE ${table} ON CLUSTER tally `) && statement.includes("PROJECTION") ? [{ statement, index }] : [],
      );
      expect(own.map(({ statement }) => /(DROP|ADD|MATERIALIZE) PROJECTION/.exec(statement)?.[1])).toEqual(["DROP", "ADD", "MATERIALIZE"]);
      expect(own.every(({ index }) => index > lastView)).toBe(true);
    }
    expect(text).toMatch(/ADD PROJECTION IF NOT EXISTS publisher_days[\s\S]*sum\(units_sold_micros\), sum\(halo_sales_revenue_micros\)/);
    expect(text).toMatch(/ADD PROJECTION IF NOT EXISTS publisher_days[\s\S]*uniqExactMerge\(converted_clicks\), uniqExactMerge\(halo_conversions\)/);
    expect(text).not.toMatch(/non_replicated/);
  });

  it("adds new_to_brand to both attributions tables and the new-to-brand columns to both rollup tables on a cluster, the views keeping migration 5's figures, no history, projections after them", () => {
    const cluster = schemaOf({ cluster: "tally", deduplicationWindow: 500 });
    const list = newToBrand.statements(cluster);
    const text = list.join("\n");
    const added = list.flatMap(
      (statement) => /^ALTER TABLE (\S+) ON CLUSTER tally ADD COLUMN IF NOT EXISTS (\w+)/.exec(statement)?.slice(1, 3).join(" ") ?? [],
    );
    expect(added).toEqual([
      "attributions_local new_to_brand",
      "attributions new_to_brand",
      "report_rollups_local ntb_sales_revenue_micros",
      "report_rollups ntb_sales_revenue_micros",
      "order_rollups_local ntb_conversions",
      "order_rollups ntb_conversions",
    ]);
    expect(text).toContain("new_to_brand Bool DEFAULT false AFTER match");
    const views = list.filter((statement) => statement.includes("MODIFY QUERY"));
    // The converted clicks view counts no new figure: left as migration 5 made it.
    expect(views.map((statement) => /^ALTER TABLE (\w+) ON CLUSTER tally MODIFY QUERY/.exec(statement)?.[1])).toEqual([
      "attributions_to_rollups",
      "attributions_to_order_rollups",
    ]);
    expect(views[0]).toMatch(
      /sumIf\(toInt128\(total_value_micros\), match = 'sku' AND credited AND new_to_brand\) AS ntb_sales_revenue_micros\s+FROM attributions_local\s/,
    );
    expect(views[1]).toMatch(/uniqExactStateIf\(conversion_id, match = 'sku' AND credited AND new_to_brand\) AS ntb_conversions\s+FROM attributions_local\s/);
    // Without its new figure, each view's query is migration 5's, every figure as it was.
    const before = haloCredit.statements(cluster).filter((statement) => statement.includes("MODIFY QUERY"));
    expect(views.map((view) => view.replace(/,\s+\w+\([^\n]*\) AS ntb_\w+/, ""))).toEqual(before.slice(0, 2));
    expect(text).not.toMatch(/INSERT/);
    expect(newToBrand).not.toHaveProperty("alone");
    const lastView = list.findIndex((statement) => statement.includes("attributions_to_order_rollups"));
    for (const table of ["report_rollups_local", "order_rollups_local"]) {
      const own = list.flatMap((statement, index) =>
        statement.startsWith(`ALTER TABLE ${table} ON CLUSTER tally `) && statement.includes("PROJECTION") ? [{ statement, index }] : [],
      );
      expect(own.map(({ statement }) => /(DROP|ADD|MATERIALIZE) PROJECTION/.exec(statement)?.[1])).toEqual(["DROP", "ADD", "MATERIALIZE"]);
      expect(own.every(({ index }) => index > lastView)).toBe(true);
    }
    expect(text).toMatch(/ADD PROJECTION IF NOT EXISTS publisher_days[\s\S]*sum\(halo_sales_revenue_micros\), sum\(ntb_sales_revenue_micros\)/);
    expect(text).toMatch(/ADD PROJECTION IF NOT EXISTS publisher_days[\s\S]*uniqExactMerge\(halo_conversions\), uniqExactMerge\(ntb_conversions\)/);
    expect(text).not.toMatch(/non_replicated/);
  });

  it("keeps the rollups per zone on a cluster: report_zones replicated whole to every node, zoned tables sharded as the rollups, views joining local rows", () => {
    const text = zonedRollups.statements(schemaOf({ cluster: "tally", deduplicationWindow: 500 })).join("\n");
    expect(text).toContain("CREATE TABLE IF NOT EXISTS report_zones_local ON CLUSTER tally");
    expect(text).toContain("ReplicatedReplacingMergeTree('/clickhouse/tables/all/{database}/report_zones_local', '{replica}', version)");
    expect(text).not.toMatch(/CREATE TABLE IF NOT EXISTS report_zones ON CLUSTER/);
    for (const table of ["zoned_report_rollups", "zoned_order_rollups"]) {
      expect(text).toContain(`ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/${table}_local', '{replica}')`);
      expect(text).toMatch(new RegExp(`CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER tally AS ${table}_local\\s+ENGINE = Distributed`));
    }
    expect(text.match(/replicated_deduplication_window = 500/g)).toHaveLength(2);
    expect(text).toMatch(
      /attributions_to_zoned_converted_clicks ON CLUSTER tally TO zoned_order_rollups_local AS[\s\S]*FROM attributions_local CROSS JOIN \(SELECT zone, argMax\(since, version\) AS since FROM report_zones_local/,
    );
    const single = zonedRollups.statements(schemaOf({ deduplicationWindow: 500 })).join("\n");
    expect(single).toContain("ENGINE = ReplacingMergeTree(version) ORDER BY zone");
    expect(single).not.toMatch(/ON CLUSTER|Replicated|_local/);
  });
});

describe("ClickHouse's search-terms migration", () => {
  it("adds the nullable search term and category after context to ad_events and attributions, local and Distributed, and touches no view or rollup", () => {
    const cluster = searchTerms.statements(schemaOf({ cluster: "tally", deduplicationWindow: 500 }));
    const columns = ["search_term Nullable(String) AFTER context", "category LowCardinality(Nullable(String)) AFTER search_term"];
    expect(cluster).toEqual(
      ["ad_events_local", "ad_events", "attributions_local", "attributions"].flatMap((table) =>
        columns.map((column) => `ALTER TABLE ${table} ON CLUSTER tally ADD COLUMN IF NOT EXISTS ${column}`),
      ),
    );
    expect(searchTerms.statements(schemaOf({ deduplicationWindow: 500 }))).toEqual(
      ["ad_events", "attributions"].flatMap((table) => columns.map((column) => `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${column}`)),
    );
    expect(searchTerms).not.toHaveProperty("alone");
  });
});

describe("ClickHouse's zone-projections migration", () => {
  it("adds each projection to the local tables on a cluster, built before the next is added, those of narrow order-state reads in granules of 1,024 rows", () => {
    const cluster = zoneProjections.statements(schemaOf({ cluster: "tally", deduplicationWindow: 500 }));
    expect(cluster.every((statement) => /^ALTER TABLE \w+_local ON CLUSTER tally /.test(statement))).toBe(true);
    const added = cluster.flatMap((statement) => {
      const found = /^ALTER TABLE (\w+)_local ON CLUSTER tally ADD PROJECTION IF NOT EXISTS (\w+) (.*)$/s.exec(statement);
      if (!found) return [];
      const [query, settings = ""] = found[3]!.split(" WITH SETTINGS ");
      return [{ table: found[1], name: found[2], query: query!, settings }];
    });
    expect(added.map(({ table, name }) => `${table}.${name}`)).toEqual([
      "zoned_report_rollups.publisher_days",
      "zoned_order_rollups.publisher_days",
      "hourly_rollups.advertiser_hours",
      "hourly_order_rollups.advertiser_hours",
      "hourly_order_rollups.publisher_hours",
      "order_rollups.campaign_days",
      "order_rollups.ad_days",
      "zoned_order_rollups.ad_days",
      "zoned_order_rollups.campaign_days",
    ]);
    for (const { table, name, query, settings } of added) {
      const narrowStates = table!.includes("order") && name !== "ad_days";
      expect(settings, `${table}.${name}`).toBe(narrowStates ? "(index_granularity = 1024)" : "");
      if (table!.endsWith("report_rollups") || table === "hourly_rollups") expect(query).not.toContain("uniqExactMerge");
    }
    // Each projection is built (and waited for) right after it is added, every table set to rebuild its projections on merges first.
    for (const [index, statement] of cluster.entries()) {
      if (!statement.includes("ADD PROJECTION")) continue;
      const [, table, name] = /ALTER TABLE (\w+) ON CLUSTER tally ADD PROJECTION IF NOT EXISTS (\w+)/.exec(statement)!;
      expect(cluster[index + 1]).toBe(`ALTER TABLE ${table} ON CLUSTER tally MATERIALIZE PROJECTION ${name} SETTINGS mutations_sync = 2`);
      const rebuild = cluster.indexOf(`ALTER TABLE ${table} ON CLUSTER tally MODIFY SETTING deduplicate_merge_projection_mode = 'rebuild'`);
      expect(rebuild).toBeGreaterThanOrEqual(0);
      expect(rebuild).toBeLessThan(index);
    }
    const single = zoneProjections.statements(schemaOf({ deduplicationWindow: 500 })).join("\n");
    expect(single).not.toMatch(/ON CLUSTER|_local/);
    expect(single).toContain("ALTER TABLE order_rollups ADD PROJECTION IF NOT EXISTS campaign_days (SELECT * ORDER BY advertiser_id, campaign_id, day)");
  });
});

describe("ClickHouse's order-keys migration", () => {
  it("keeps order keys on a cluster: sharded local tables and Distributed ones, views writing the local tables, the history through the Distributed tables after the views, the first day replicated whole", () => {
    const list = orderKeys.statements(schemaOf({ cluster: "tally", deduplicationWindow: 500 }));
    const at = (pattern: RegExp) => list.findIndex((statement) => pattern.test(statement));
    for (const table of ["order_keys", "zoned_order_keys"]) {
      expect(list[at(new RegExp(`CREATE TABLE IF NOT EXISTS ${table}_local ON CLUSTER tally`))]).toContain(
        `ReplicatedAggregatingMergeTree('/clickhouse/tables/{shard}/{database}/${table}_local', '{replica}')`,
      );
      expect(at(new RegExp(`CREATE TABLE IF NOT EXISTS ${table} ON CLUSTER tally AS ${table}_local\\s+ENGINE = Distributed`))).toBeGreaterThan(0);
    }
    expect(list[at(/order_keys_start_local ON CLUSTER/)]).toContain("'/clickhouse/tables/all/{database}/order_keys_start_local'");
    const views = [
      "attributions_to_order_keys",
      "attributions_to_converted_click_keys",
      "attributions_to_zoned_order_keys",
      "attributions_to_zoned_converted_click_keys",
    ];
    for (const view of views) {
      const statement = list[at(new RegExp(`MATERIALIZED VIEW IF NOT EXISTS ${view} ON CLUSTER tally TO (zoned_)?order_keys_local AS`))]!;
      expect(statement).toContain("FROM attributions_local");
    }
    const history = list.filter((statement) => /^INSERT INTO (zoned_)?order_keys /.test(statement));
    expect(history).toHaveLength(4);
    for (const insert of history) {
      expect(insert).toMatch(/FROM attributions\b(?!_local)/);
      expect(insert).toContain("distributed_foreground_insert = 1");
      expect(list.indexOf(insert)).toBeGreaterThan(at(/attributions_to_zoned_converted_click_keys ON CLUSTER/));
    }
    expect(list.at(-1)).toMatch(/^INSERT INTO order_keys_start_local \(since, version\)/);
  });
});
