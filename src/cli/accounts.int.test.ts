// `npm run accounts` as an operator runs it: a child process against this file's database.
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { makeAdvertiser } from "@/testing/fixtures";
import { runCli } from "@/testing/run-cli";

const accounts = (args: string[]) => runCli("accounts.ts", args);

// Each command starts a process (tsx, Prisma): a few seconds each on a busy machine.
const SPAWNS = { timeout: 120_000 };

describe("npm run accounts", () => {
  it("sets an account's time zone as the operator, saying what changed, the offset now and from when days are kept in it", SPAWNS, async () => {
    const brand = await makeAdvertiser();
    const shown = await accounts(["show", "--account", brand.id]);
    expect(shown.err).toBe("");
    expect(shown.out).toBe(`${brand.id}  ${brand.name}  advertiser  USD  UTC (UTC+00:00 now)\n`);

    const set = await accounts(["time-zone", "--account", brand.id, "--zone", "asia/kolkata"]);
    expect(set.err).toBe("");
    expect(set.code).toBe(0);
    const zone = (await db.account.findUniqueOrThrow({ where: { id: brand.id } })).timeZone;
    expect(zone).toBe("Asia/Kolkata");
    expect(set.out).toContain(`tally: ${brand.name} (${brand.id}): time zone changed from UTC to ${zone}, UTC+05:30 now\n`);
    expect(set.out).toMatch(
      new RegExp(
        `tally: reports hold days in ${zone} from \\d{4}-\\d\\d-\\d\\d 00:00 UTC on; days before then read as UTC days until upkeep fills in those still held raw\\n`,
      ),
    );
    expect((await accounts(["show", "--account", brand.id])).out).toContain(`${zone} (UTC+05:30 now)`);
    expect((await accounts(["time-zone", "--account", brand.id, "--zone", zone])).out).toContain(`is already in ${zone}, UTC+05:30 now`);
    const logged = await db.activityEntry.findMany({ where: { accountId: brand.id, action: "account.time_zone.set" } });
    expect(logged.map((entry) => [entry.actorName, entry.before, entry.after])).toEqual([["operator", { timeZone: "UTC" }, { timeZone: zone }]]);
  });

  it("refuses a bad zone (1) and an unknown account (1) in words, and a missing option as usage (2)", SPAWNS, async () => {
    const brand = await makeAdvertiser();
    const bad = await accounts(["time-zone", "--account", brand.id, "--zone", "+05:30"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toBe("tally: timeZone: is not a time zone: name one as Area/City, such as America/Sao_Paulo, or UTC\n");
    const unknown = await accounts(["time-zone", "--account", "adv_nobody", "--zone", "UTC"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toBe("tally: no such account\n");
    const usage = await accounts(["time-zone", "--account", brand.id]);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("usage: npm run accounts -- time-zone --account <id> --zone <Area/City>");
    expect((await db.account.findUniqueOrThrow({ where: { id: brand.id } })).timeZone).toBe("UTC");
  });
});
