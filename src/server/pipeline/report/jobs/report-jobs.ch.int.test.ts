// Report jobs with ClickHouse as the store: the runner reads through the same store seam as the
// routes, so a job's file holds what the JSON route answers from ClickHouse, row for row.
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATOR } from "@/server/accounts/actor";
import { createApiKey } from "@/server/accounts/api-keys";
import { pgPool } from "@/server/db/pg-pool";
import { handleCreateReportJob, handleGetReportJob } from "@/server/http/report-job-routes";
import { handleAdsDetailed, handleCampaignListing } from "@/server/http/report-routes";
import { shipPending } from "@/server/pipeline/ship/ship-pending";
import { store } from "@/server/store";
import { forgetClickhouseReadableZones } from "@/server/store/clickhouse/report-zones.sql";
import { csvRows, inJsonTerms, jsonLinesRows, reportJobBucketForTests } from "@/testing/report-job-bucket";
import { seedParityTraffic } from "@/testing/report-parity-traffic";
import { runReportJobs } from "./run-report-jobs";

const jobsBucket = await reportJobBucketForTests();
let traffic: Awaited<ReturnType<typeof seedParityTraffic>>;
let key: string;

beforeAll(async () => {
  expect(store().name).toBe("clickhouse");
  traffic = await seedParityTraffic();
  const shipped = await shipPending({ budgetMs: 120_000 });
  expect(shipped.error).toBeNull();
  expect((await store().shipping!.state()).waiting).toBe(0);
  key = (await createApiKey({ actor: OPERATOR, accountId: traffic.acme.id, name: "jobs" })).key;
}, 300_000);

const auth = () => ({ Authorization: `Bearer ${key}` });

async function jobFile(body: Record<string, unknown>): Promise<string> {
  const created = await handleCreateReportJob(
    new Request("http://tally.test/report/jobs", { method: "POST", headers: { ...auth(), "Content-Type": "application/json" }, body: JSON.stringify(body) }),
  );
  expect(created.status).toBe(202);
  const { id } = ((await created.json()) as { data: { id: string } }).data;
  const outcomes = await runReportJobs({ settings: { partBytes: 5 * 1024 * 1024 } });
  expect(outcomes.find((outcome) => outcome.id === id)?.status).toBe("done");
  const read = await handleGetReportJob(new Request(`http://tally.test/report/jobs/${id}`, { headers: auth() }));
  const { data } = (await read.json()) as { data: { status: string; download_url: string } };
  expect(data.status).toBe("done");
  return (await jobsBucket.fetchFile(data.download_url)).file;
}

async function routeRows(handler: (request: Request) => Promise<Response>, path: string): Promise<Record<string, unknown>[]> {
  const response = await handler(new Request(`http://tally.test${path}`, { headers: auth() }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown>[] }).data;
}

const asText = (rows: Record<string, unknown>[]) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([name, value]) => [name, value === null ? null : String(value)])));

describe("a report job with ClickHouse as the store", () => {
  it("writes the rows the JSON route answers from ClickHouse: campaigns as JSON lines, ads by day as CSV", async () => {
    const { startDate, endDate } = traffic.range;
    const campaigns = await routeRows(handleCampaignListing, `/campaign/v2?start_date=${startDate}&end_date=${endDate}&per_page=1000`);
    expect(campaigns.length).toBeGreaterThan(0);
    const lines = await jsonLinesRows(await jobFile({ report: "campaigns", start_date: startDate, end_date: endDate, format: "jsonl" }));
    expect(inJsonTerms(lines)).toEqual(campaigns);

    const detailed = await routeRows(
      handleAdsDetailed,
      `/report/advertisers/ads-detailed?start_date=${startDate}&end_date=${endDate}&order_by=day&order=asc&per_page=1000`,
    );
    expect(detailed.length).toBeGreaterThan(1);
    const csv = await csvRows(
      await jobFile({ report: "ads_detailed", start_date: startDate, end_date: endDate, order_by: "day", order: "asc", format: "csv" }),
    );
    expect(csv).toEqual(asText(detailed));
  });
});

describe("time zones with ClickHouse as the store", () => {
  it("reads the zones ClickHouse keeps: São Paulo only once the shipper's run has brought it over, its days before ClickHouse's start as UTC days", async () => {
    // Postgres keeps São Paulo from now on, and the account reads in it.
    await pgPool().query(`INSERT INTO report_zones (zone, since, hours_since) VALUES ('America/Sao_Paulo', now(), now()) ON CONFLICT (zone) DO NOTHING`);
    await pgPool().query(`UPDATE accounts SET time_zone = 'America/Sao_Paulo' WHERE id = $1`, [traffic.acme.id]);
    const { startDate, endDate } = traffic.range;
    const ask = (query: string) =>
      handleCampaignListing(new Request(`http://tally.test/campaign/v2?start_date=${startDate}&end_date=${endDate}${query}`, { headers: auth() }));
    forgetClickhouseReadableZones();
    // Not in ClickHouse's copy yet: UTC, and São Paulo refused, naming UTC.
    const answer = await ask("");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("tally-time-zone")).toBe("UTC");
    const refused = await ask("&time_zone=America/Sao_Paulo");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: { code: "bad_request", message: "time_zone must be one of: UTC" } });

    // The shipper's run keeps it in ClickHouse too, from Postgres's start (nothing shipped is after it).
    expect((await store().shipping!.ship()).error).toBeNull();
    forgetClickhouseReadableZones();
    const since = (
      await pgPool().query<{ day: string }>(`SELECT (since AT TIME ZONE 'UTC')::date::text AS day FROM report_zones WHERE zone = 'America/Sao_Paulo'`)
    ).rows[0]!.day;
    const zoned = await ask("");
    expect(zoned.status).toBe(200);
    expect(zoned.headers.get("tally-time-zone")).toBe("America/Sao_Paulo");
    // Every day of the range is before the zone's start: UTC days, the same figures as UTC's, and the answer says so.
    expect(zoned.headers.get("tally-utc-days-before")).toBe(since);
    const utc = await ask("&time_zone=UTC");
    expect(await zoned.json()).toEqual(await utc.json());
    const job = await handleCreateReportJob(
      new Request("http://tally.test/report/jobs", {
        method: "POST",
        headers: { ...auth(), "Content-Type": "application/json" },
        body: JSON.stringify({ report: "campaigns", start_date: startDate, end_date: endDate, time_zone: "America/Sao_Paulo", format: "csv" }),
      }),
    );
    expect(job.status).toBeLessThan(300);
  });
});
