// A download from the ClickHouse store asks ClickHouse for its figures only once its claim (its
// download slots) is granted: one refused for want of a slot costs ClickHouse nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { TallyError } from "@/server/core/errors";
import { scopeOfAccount } from "@/server/pipeline/report/report-scope";
import { store } from "@/server/store";
import type { ReportQuery } from "@/server/store/report-query";
import type { CampaignListingOrderBy } from "@/server/store/report-rows";
import { seedAcme } from "@/testing/report-fixture";
import { runCommand } from "./client";

let acme: Awaited<ReturnType<typeof seedAcme>>;

beforeAll(async () => {
  acme = await seedAcme();
  await store().shipping!.ship();
});

const query: ReportQuery<CampaignListingOrderBy> = {
  startDate: "2026-11-01",
  zone: "UTC",
  endDate: "2026-11-30",
  page: 1,
  perPage: 50,
  orderBy: "impressions_total",
  order: "desc",
  download: true,
  ids: {},
};

describe("a download from ClickHouse", () => {
  it("is refused before ClickHouse is asked, and asks it once the claim is granted", async () => {
    const scope = await scopeOfAccount(acme.cpc.campaign.advertiserId);
    const refuse = async () => {
      throw new TallyError("too_many_requests", "every download slot is taken");
    };
    // With the rollups out of reach, any read of ClickHouse would fail: the refusal comes first.
    await runCommand("RENAME TABLE report_rollups TO report_rollups_away");
    try {
      await expect(store().reports.campaigns(scope, query).open({ batch: 10, claim: refuse })).rejects.toThrow("every download slot is taken");
      // Granted, the same read does go to ClickHouse (and fails there, the table being away).
      await expect(
        store()
          .reports.campaigns(scope, query)
          .open({ batch: 10, claim: async () => {} }),
      ).rejects.toThrow(/report_rollups/);
    } finally {
      await runCommand("RENAME TABLE report_rollups_away TO report_rollups");
    }
    const cursor = await store()
      .reports.campaigns(scope, query)
      .open({ batch: 10, claim: async () => {} });
    const rows = [];
    for await (const batch of cursor.batches) rows.push(...batch);
    expect(rows.map((row) => [row.campaign_id, row.impressions_total])).toEqual([
      [acme.cpc.campaign.id, 5],
      [acme.cpm.campaign.id, 2],
    ]);
  });
});
