import { expect, test } from "@playwright/test";
import { E2E_CLICKHOUSE_PG_PORT, eventually, queryAt } from "./database";
import { signInAsStaff } from "./sign-in";

// The server with ClickHouse as the store (playwright.config.ts, project "clickhouse"): a shopper's
// impressions, click and order are settled, attributed and shipped by the app's own loops, and the
// dashboard's figures, which Postgres's rollups no longer hold in this mode, come from ClickHouse.
const query = <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => queryAt<T>(E2E_CLICKHOUSE_PG_PORT, sql, params);
const METRICS = { Authorization: "Bearer e2e-clickhouse-metrics-token" };

test("with ClickHouse as the store, a shopper's impressions, click and order reach the dashboard through the shipper", async ({ page, browser, request }) => {
  test.setTimeout(150_000);
  expect(await (await request.get("/api/health", { headers: METRICS })).json()).toMatchObject({ status: "ok", store: "clickhouse" });

  // A shopper sees the demo store's sponsored products, clicks one and buys it.
  const shopper = await (await browser.newContext()).newPage();
  await shopper.goto("/demo");
  const sponsored = shopper.getByTestId("sponsored-ad").first();
  await expect(sponsored).toBeVisible();
  await sponsored.click();
  await shopper.waitForURL(/\/demo\/product\//);
  await shopper.getByLabel("E-mail").fill("clickhouse.shopper@example.com");
  await shopper.getByRole("button", { name: "Buy now" }).click();
  const orderId = (await shopper.getByTestId("order-id").textContent())!;

  // Settled and attributed (every second and every 10 s), then shipped: nothing waits in the outbox.
  await eventually(
    () => query("SELECT 1 FROM attributions WHERE order_id = $1", [orderId]),
    (rows) => rows.length > 0,
    60_000,
  );
  const waiting = await eventually(
    () => query<{ n: number }>("SELECT count(*)::int AS n FROM clickhouse_batches WHERE shipped_at IS NULL"),
    (rows) => rows[0]!.n === 0,
    30_000,
  );
  expect(waiting).toEqual([{ n: 0 }]);
  // Postgres wrote no report rows: whatever the dashboard shows, ClickHouse answered.
  expect(await query("SELECT 1 FROM daily_rollups LIMIT 1")).toEqual([]);
  const [counted] = await query<{ impressions: number; clicks: number }>(
    `SELECT count(*) FILTER (WHERE kind = 'impression')::int AS impressions, count(*) FILTER (WHERE kind = 'click')::int AS clicks
       FROM ad_events WHERE publisher_id = 'pub_demo_market' AND status = 'counted'`,
  );
  expect(counted!.impressions).toBeGreaterThan(0);
  expect(counted!.clicks).toBe(1);

  await signInAsStaff(page);
  await page.getByLabel("Account").selectOption({ label: "Demo Market (publisher)" });
  const kpis = page.getByRole("region", { name: "Totals" });
  await expect(kpis.locator('[data-kpi="Impressions"] .kpi-value')).toHaveText(new Intl.NumberFormat("en").format(counted!.impressions));
  await expect(kpis.locator('[data-kpi="Clicks"] .kpi-value')).toHaveText("1");
  await expect(kpis.locator('[data-kpi="Conversions"] .kpi-value')).toHaveText("1");
  await page.screenshot({ path: "test-results/e2e/screens/dashboard-clickhouse.png", fullPage: true });

  const health = (await (await request.get("/api/health", { headers: METRICS })).json()) as { store: string; lags: Record<string, number> };
  expect(health.store).toBe("clickhouse");
  expect(health.lags).toMatchObject({ ship_waiting_batches: 0, ship_set_aside_rows: 0 });
});
