// Report jobs end to end over seedAcme's data: asked for through POST /report/jobs, run by the
// runner into a real S3 API (s3rver), read back through GET /report/jobs/:id's presigned address
// by readers Tally did not write, and compared with the JSON routes' rows for the same query.
import { beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { pgPool } from "@/server/db/pg-pool";
import { handleReportJobsCron } from "@/server/http/cron";
import { forgetReadableZones } from "@/server/store/postgres/report-zone.sql";
import {
  handleAdsDetailed,
  handleCampaignDetail,
  handleCampaignListing,
  handleCreateReportJob,
  handleGetReportJob,
  handleListReportJobs,
} from "@/testing/api/checked-report-routes";
import { seedAcme } from "@/testing/report-fixture";
import { csvRows, inJsonTerms, jsonLinesRows, reportJobBucketForTests } from "@/testing/report-job-bucket";
import { reportSheet } from "@/testing/report-sheet";
import { CAMPAIGN_DAILY_WORKBOOK } from "../report-definitions";
import { runReportJobs } from "./run-report-jobs";

const CRON_SECRET = "report-jobs-cron-secret-for-tests";
process.env.CRON_SECRET = CRON_SECRET;
const jobsBucket = await reportJobBucketForTests();
let acme: Awaited<ReturnType<typeof seedAcme>>;

beforeAll(async () => {
  // Reports kept in São Paulo from before the data, so that a job can read them there.
  await pgPool().query(
    `INSERT INTO report_zones (zone, since, hours_since) VALUES ('America/Sao_Paulo', '2026-11-01T00:00:00Z', '2026-11-01T00:00:00Z') ON CONFLICT (zone) DO NOTHING`,
  );
  forgetReadableZones();
  acme = await seedAcme();
});

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
const post = (key: string, body: unknown) =>
  handleCreateReportJob(
    new Request("http://tally.test/report/jobs", {
      method: "POST",
      headers: { ...auth(key), "Content-Type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
const getJob = async (key: string, id: string) => {
  const response = await handleGetReportJob(new Request(`http://tally.test/report/jobs/${id}`, { headers: auth(key) }));
  return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
};
const routeRows = async (handler: (request: Request) => Promise<Response>, path: string) => {
  const response = await handler(new Request(`http://tally.test${path}`, { headers: auth(acme.advertiserKey) }));
  expect(response.status).toBe(200);
  return (await response.json()) as { data: Record<string, unknown>[] & { daily?: Record<string, unknown>[] } };
};
const asText = (rows: Record<string, unknown>[]) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? null : String(value)])));

async function queued(key: string, body: Record<string, unknown>): Promise<string> {
  const response = await post(key, body);
  expect(response.status).toBe(202);
  const { data } = (await response.json()) as { data: { id: string; status: string } };
  expect(data.status).toBe("queued");
  expect(response.headers.get("location")).toBe(`/report/jobs/${data.id}`);
  return data.id;
}

async function downloaded(id: string) {
  const { status, body } = await getJob(acme.advertiserKey, id);
  expect(status).toBe(200);
  expect(body.data).toMatchObject({ id, status: "done", attempts: 1, error: null });
  const expiresIn = Date.parse(body.data.download_expires_at as string) - Date.now();
  expect(expiresIn).toBeGreaterThan(14 * 60_000);
  expect(expiresIn).toBeLessThanOrEqual(15 * 60_000);
  const file = await jobsBucket.fetchFile(body.data.download_url as string);
  expect(body.data.bytes).toBe(file.bytes.byteLength);
  return { ...file, job: body.data };
}

describe("a report job of each format", () => {
  it("runs, and its file read by another reader holds the JSON route's rows for the same query", async () => {
    const jsonl = await queued(acme.advertiserKey, { report: "campaigns", start_date: "2026-11-01", end_date: "2026-11-30", format: "jsonl" });
    const csv = await queued(acme.advertiserKey, {
      report: "ads_detailed",
      start_date: "2026-11-01",
      end_date: "2026-11-30",
      filters: { advertiser_id: acme.acmeId },
      order_by: "day",
      order: "asc",
      format: "csv",
    });
    const xlsx = await queued(acme.advertiserKey, {
      report: "campaign_daily",
      start_date: "2026-11-09",
      end_date: "2026-11-11",
      filters: { campaign_id: acme.cpc.campaign.id },
      format: "xlsx",
    });
    const outcomes = await runReportJobs({ settings: { partBytes: 5 * 1024 * 1024 } });
    expect(outcomes.map((o) => [o.id, o.status])).toEqual([
      [jsonl, "done"],
      [csv, "done"],
      [xlsx, "done"],
    ]);

    const campaigns = (await routeRows(handleCampaignListing, "/campaign/v2?start_date=2026-11-01&end_date=2026-11-30&per_page=1000")).data;
    expect(campaigns).toHaveLength(2);
    const jsonFile = await downloaded(jsonl);
    expect(jsonFile.job.rows).toBe(2);
    expect(jsonFile.disposition).toBe('attachment; filename="campaigns_2026-11-01_2026-11-30_UTC.jsonl"');
    expect(jsonFile.job.time_zone).toBe("UTC");
    expect(inJsonTerms(await jsonLinesRows(jsonFile.file))).toEqual(campaigns);

    const detailed = (
      await routeRows(
        handleAdsDetailed,
        `/report/advertisers/ads-detailed?start_date=2026-11-01&end_date=2026-11-30&advertiser_id=${acme.acmeId}&order_by=day&order=asc&per_page=1000`,
      )
    ).data;
    expect(detailed.length).toBeGreaterThan(1);
    const csvFile = await downloaded(csv);
    expect(await csvRows(csvFile.file)).toEqual(asText(detailed));

    const daily = (
      (await routeRows(handleCampaignDetail, `/campaign/${acme.cpc.campaign.id}?start_date=2026-11-09&end_date=2026-11-11`)).data as unknown as {
        daily: Record<string, unknown>[];
      }
    ).daily;
    expect(daily).toHaveLength(3);
    const xlsxFile = await downloaded(xlsx);
    // A figure with nothing to divide by is null in the JSON and an empty cell in the sheet.
    const sheet = await reportSheet(xlsxFile.bytes, CAMPAIGN_DAILY_WORKBOOK.columns);
    expect(inJsonTerms(sheet.rows)).toEqual(daily);
    // The route's download's totals row and formats.
    expect(sheet.totals).toMatchObject({ day: "Total", impressions_total: daily.reduce((n, row) => n + (row.impressions_total as number), 0) });
    expect(sheet.sheet.getRow(2).getCell(sheet.fields.indexOf("ctr") + 1).numFmt).toBe("0.00%");

    expect(await jobsBucket.listKeys()).toEqual(
      [`report-jobs/${acme.acmeId}/${jsonl}.jsonl`, `report-jobs/${acme.acmeId}/${csv}.csv`, `report-jobs/${acme.acmeId}/${xlsx}.xlsx`].sort(),
    );
  });
});

describe("a report job in a time zone", () => {
  it("reads the range's local days in the zone asked for, keeps the zone, and names it in its file", async () => {
    const path = `/campaign/${acme.cpc.campaign.id}?start_date=2026-11-09&end_date=2026-11-11&time_zone=America/Sao_Paulo`;
    const id = await queued(acme.advertiserKey, {
      report: "campaign_daily",
      start_date: "2026-11-09",
      end_date: "2026-11-11",
      time_zone: "america/sao_paulo",
      filters: { campaign_id: acme.cpc.campaign.id },
      format: "xlsx",
    });
    expect((await runReportJobs({ settings: { partBytes: 5 * 1024 * 1024 } })).map((o) => [o.id, o.status])).toEqual([[id, "done"]]);
    const file = await downloaded(id);
    expect(file.job.time_zone).toBe("America/Sao_Paulo");
    expect(file.disposition).toBe('attachment; filename="campaign_daily_2026-11-09_2026-11-11_America-Sao_Paulo.xlsx"');
    const daily = ((await routeRows(handleCampaignDetail, path)).data as unknown as { daily: Record<string, unknown>[] }).daily;
    expect(daily.map((row) => row.impressions_total)).toEqual([0, 5, 0]);
    const sheet = await reportSheet(file.bytes, CAMPAIGN_DAILY_WORKBOOK.columns);
    expect(inJsonTerms(sheet.rows)).toEqual(daily);
    expect(sheet.sheet.workbook.title).toBe("Daily, 2026-11-09 to 2026-11-11, America/Sao_Paulo");
  });

  it("refuses a zone reports are not kept in, naming those they are", async () => {
    const response = await post(acme.advertiserKey, {
      report: "campaigns",
      start_date: "2026-11-01",
      end_date: "2026-11-30",
      time_zone: "Asia/Tokyo",
      format: "csv",
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe("time_zone must be one of: UTC, America/Sao_Paulo");
  });
});

describe("POST /report/jobs refusals", () => {
  const good = { report: "campaigns", start_date: "2026-01-01", end_date: "2026-02-04", format: "csv" };
  const refusal = async (key: string, body: unknown) => {
    const response = await post(key, body);
    return { status: response.status, message: ((await response.json()) as { error: { message: string } }).error.message };
  };

  it("answer 400 naming the field, 413 for a body past its size, 404 for what the caller may not read", async () => {
    expect(await refusal(acme.advertiserKey, { ...good, start_date: "2025-01-01", end_date: "2026-02-05" })).toEqual({
      status: 400,
      message: "end_date: start_date to end_date spans more than 400 days",
    });
    // 400 days, both included, is the longest range.
    expect((await post(acme.advertiserKey, { ...good, start_date: "2025-01-01", end_date: "2026-02-04" })).status).toBe(202);
    expect(await refusal(acme.advertiserKey, { ...good, report: "orders" })).toMatchObject({ status: 400, message: expect.stringMatching(/^report: /) });
    expect(await refusal(acme.advertiserKey, { ...good, format: "parquet" })).toMatchObject({ status: 400, message: expect.stringMatching(/^format: /) });
    expect(await refusal(acme.advertiserKey, { ...good, report: "advertisers", filters: { ad_id: "ad_1" } })).toEqual({
      status: 400,
      message: "filters.ad_id: the advertisers report takes advertiser_id",
    });
    expect(await refusal(acme.advertiserKey, { ...good, filters: { shop: "x" } })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^filters\.shop: /),
    });
    expect(await refusal(acme.advertiserKey, { ...good, order_by: "price" })).toMatchObject({ status: 400, message: expect.stringMatching(/^order_by: /) });
    expect(await refusal(acme.advertiserKey, { ...good, start_date: "2026-02-30" })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^start_date: /),
    });
    expect(await refusal(acme.advertiserKey, { ...good, report: "campaign_daily" })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^filters\.campaign_id: /),
    });
    expect(await refusal(acme.advertiserKey, "{not json")).toMatchObject({ status: 400 });
    expect(await refusal(acme.advertiserKey, { ...good, padding: "x".repeat(5000) })).toMatchObject({ status: 413 });

    expect((await refusal(acme.advertiserKey, { ...good, report: "network_publishers" })).status).toBe(404);
    expect((await refusal(acme.advertiserKey, { ...good, report: "campaign_daily", filters: { campaign_id: acme.othersCampaign.campaign.id } })).status).toBe(
      404,
    );
    expect((await post("tally_not_a_key", good)).status).toBe(401);
  });

  it("keep a job to its account: its keys and members see it, staff too, another account gets 404", async () => {
    const id = await queued(acme.advertiserKey, good);
    expect((await getJob(acme.otherAdvertiserKey, id)).status).toBe(404);
    expect((await getJob(acme.shopAKey, id)).status).toBe(404);
    expect((await getJob(acme.advertiserKey, id)).body.data).toMatchObject({ id, status: "queued", report: "campaigns", format: "csv" });
    expect((await getJob(acme.advertiserKey, "rjob_nope")).status).toBe(404);
    // A signed-in member of the account sees it, as staff do; a member of another account does not.
    await createUser({ email: "member@jobs.test", name: "Member", password: "correct horse battery", role: "member", accountId: acme.acmeId });
    await createUser({ email: "other@jobs.test", name: "Other", password: "correct horse battery", role: "member", accountId: acme.otherId });
    await createUser({ email: "staff@jobs.test", name: "Staff", password: "correct horse battery", role: "staff" });
    const bySession = async (email: string) => {
      const { token } = await signIn(email, "correct horse battery");
      return (await handleGetReportJob(new Request(`http://tally.test/report/jobs/${id}`, { headers: { Cookie: `tally_session=${token}` } }))).status;
    };
    expect(await bySession("member@jobs.test")).toBe(200);
    expect(await bySession("staff@jobs.test")).toBe(200);
    expect(await bySession("other@jobs.test")).toBe(404);

    const list = async (key: string) =>
      (await (await handleListReportJobs(new Request("http://tally.test/report/jobs?per_page=100", { headers: auth(key) }))).json()) as {
        data: { id: string; created_at: string }[];
        total: number;
      };
    const mine = await list(acme.advertiserKey);
    expect(mine.data.map((j) => j.id)).toContain(id);
    expect(mine.total).toBe(mine.data.length);
    const created = mine.data.map((j) => j.created_at);
    expect(created).toEqual([...created].sort().reverse());
    expect((await list(acme.otherAdvertiserKey)).data.map((j) => j.id)).not.toContain(id);
  });
});

describe("GET /api/cron/report-jobs", () => {
  it("runs the queued jobs for the cron secret only, and says what it did", async () => {
    const id = await queued(acme.advertiserKey, { report: "advertisers", start_date: "2026-11-01", end_date: "2026-11-30", format: "jsonl" });
    const cron = (authorization?: string) =>
      handleReportJobsCron(new Request("http://tally.test/api/cron/report-jobs", { headers: authorization ? { Authorization: authorization } : {} }));
    expect((await cron()).status).toBe(401);
    expect((await cron("Bearer not-the-secret")).status).toBe(401);
    expect((await getJob(acme.advertiserKey, id)).body.data.status).toBe("queued");
    const response = await cron(`Bearer ${CRON_SECRET}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { jobs: { id: string; status: string }[] };
    // The refusals' one accepted job (400 days, no rows) is queued too, and runs first.
    expect(body.jobs.map((j) => j.status)).toEqual(body.jobs.map(() => "done"));
    expect(body.jobs.map((j) => j.id)).toContain(id);
    expect((await getJob(acme.advertiserKey, id)).body.data.status).toBe("done");
  });
});
