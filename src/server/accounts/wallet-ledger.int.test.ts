// The wallet's ledger: each top-up kept with who, when, how much and the balance it left, in the
// transaction that moved the money; a request sent twice tops up once; each day's charges as
// settling took them from the wallet (real clicks), newest first; who may read and who may top up.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Viewer } from "@/server/accounts/sessions";
import { addDays, DAY_MS, daysFromToday, utcDay } from "@/server/core/days";
import { db } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";
import { CHROME, type ServedTarget, servedClaims } from "@/testing/beacon-log";
import { makeAdvertiser, makeCampaignWithAd, makePublisher } from "@/testing/fixtures";
import { recordAndSettle, settledClickDaysAgo } from "@/testing/settle";
import { topUpWallet } from "./manage-account";
import { walletLedger } from "./wallet-ledger";

const staff: Viewer = { userId: "usr_ledger_staff", email: "staff@ledger.test", name: "Lee Staff", role: "staff", accountId: null };
const member = (accountId: string): Viewer => ({
  userId: `usr_${accountId}`,
  email: "m@ledger.test",
  name: "Member",
  role: "member",
  accountId,
  memberRole: "admin",
});
const range = { startDate: daysFromToday(-9), endDate: daysFromToday(0) };

let shop: Awaited<ReturnType<typeof makePublisher>>;
let brand: Awaited<ReturnType<typeof makeAdvertiser>>;
let campaign: Awaited<ReturnType<typeof makeCampaignWithAd>>;

/** A counted click (CPC 0.40) `daysAgo` days before now. */
async function click(daysAgo: number) {
  const target: ServedTarget = { ...campaign, ad: { id: campaign.ad.id, type: campaign.ad.type, size: campaign.ad.size }, publisher: shop };
  expect((await settledClickDaysAgo(target, daysAgo)).status).toBe("counted");
}

beforeAll(async () => {
  shop = await makePublisher();
  brand = await makeAdvertiser({ wallet: 100 });
  campaign = await makeCampaignWithAd({ advertiserId: brand.id, publisherIds: [shop.id], bidModel: "cpc", bid: 0.4 });
  await click(2);
  await click(2);
  await click(0);
});

describe("the wallet's ledger", () => {
  it("keeps each top-up with who, when, the amount and the balance it left, and each day's charges, newest first", async () => {
    expect(await topUpWallet({ actor: staff, accountId: brand.id, amount: 50, requestId: "req-ledger-1" })).toBe(148.8);
    const { rows, moreTopUps } = await walletLedger({ actor: staff, accountId: brand.id, ...range });
    expect(moreTopUps).toBe(false);
    expect(rows.map(({ id: _id, when: _when, ...row }) => row)).toEqual([
      { entry: "top-up", amount: 50, by: "Lee Staff <staff@ledger.test>", balanceAfter: 148.8 },
      { entry: "charges", amount: -0.4, by: null, balanceAfter: null },
      { entry: "charges", amount: -0.8, by: null, balanceAfter: null },
    ]);
    expect(rows.map((r) => r.when.slice(0, 10))).toEqual([daysFromToday(0), daysFromToday(0), daysFromToday(-2)]);
    // The same top-up in the activity log, from the same transaction.
    const logged = await db.activityEntry.findFirst({ where: { accountId: brand.id, action: "account.wallet.topped_up" }, orderBy: { id: "desc" } });
    expect(logged).toMatchObject({ before: { walletBalance: 98.8 }, after: { walletBalance: 148.8 } });
    // Members read it, with "Tally staff" for who; another account's member reads nothing.
    const asMember = await walletLedger({ actor: member(brand.id), accountId: brand.id, ...range });
    expect(asMember.rows[0]).toMatchObject({ entry: "top-up", by: "Tally staff" });
    await expect(walletLedger({ actor: member(shop.id), accountId: brand.id, ...range })).rejects.toMatchObject({ code: "not_found" });
    // A range before the clicks and the top-up holds nothing.
    expect((await walletLedger({ actor: staff, accountId: brand.id, startDate: daysFromToday(-30), endDate: daysFromToday(-20) })).rows).toEqual([]);
  });

  it("tops up once for a request sent twice, even at the same time, and refuses another amount under its id", async () => {
    const wallet = await makeAdvertiser({ wallet: 10 });
    const requestId = `req-${randomUUID()}`;
    const twice = await Promise.all([1, 2].map(() => topUpWallet({ actor: staff, accountId: wallet.id, amount: 5, requestId })));
    expect(twice).toEqual([15, 15]);
    expect(await topUpWallet({ actor: staff, accountId: wallet.id, amount: 5, requestId })).toBe(15);
    expect((await db.account.findUniqueOrThrow({ where: { id: wallet.id } })).walletBalanceMicros).toBe(15_000_000n);
    expect(await db.walletTopUp.count({ where: { accountId: wallet.id } })).toBe(1);
    expect(await db.activityEntry.count({ where: { accountId: wallet.id, action: "account.wallet.topped_up" } })).toBe(1);
    await expect(topUpWallet({ actor: staff, accountId: wallet.id, amount: 6, requestId })).rejects.toMatchObject({
      code: "bad_request",
      details: { fieldErrors: { amount: "differs from the top-up this request already made (5)" } },
    });
    // Another press of the button is another top-up.
    expect(await topUpWallet({ actor: staff, accountId: wallet.id, amount: 5, requestId: `req-${randomUUID()}` })).toBe(20);
  });

  it("is append-only: an update or a delete of a row changes nothing", async () => {
    const wallet = await makeAdvertiser({ wallet: 1 });
    await topUpWallet({ actor: staff, accountId: wallet.id, amount: 2, requestId: `req-${randomUUID()}` });
    await db.$executeRaw`UPDATE wallet_top_ups SET amount_micros = 1 WHERE account_id = ${wallet.id}`;
    await db.$executeRaw`DELETE FROM wallet_top_ups WHERE account_id = ${wallet.id}`;
    expect(await db.walletTopUp.findMany({ where: { accountId: wallet.id }, select: { amountMicros: true, balanceAfterMicros: true } })).toEqual([
      { amountMicros: 2_000_000n, balanceAfterMicros: 3_000_000n },
    ]);
  });

  it("is served to staff and the account's members, and only staff top up, through the procedures", async () => {
    const wallet = await makeAdvertiser({ wallet: 0 });
    const requestId = `req-${randomUUID()}`;
    expect(await createCaller({ viewer: staff }).accounts.topUp({ accountId: wallet.id, amount: 500, requestId })).toEqual({ walletBalance: 500 });
    expect(await createCaller({ viewer: staff }).accounts.topUp({ accountId: wallet.id, amount: 500, requestId })).toEqual({ walletBalance: 500 });
    const read = await createCaller({ viewer: member(wallet.id) }).accounts.walletLedger({ accountId: wallet.id, ...range });
    expect(read.rows).toMatchObject([{ entry: "top-up", amount: 500, balanceAfter: 500, by: "Tally staff" }]);
    await expect(createCaller({ viewer: member(wallet.id) }).accounts.topUp({ accountId: wallet.id, amount: 5 })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("lists an account's local days and times: São Paulo's evening clicks, either side of 00:00 UTC, are one day's charges", async () => {
    const saoPaulo = await makeAdvertiser({ wallet: 10 });
    await db.account.update({ where: { id: saoPaulo.id }, data: { timeZone: "America/Sao_Paulo" } });
    const made = await makeCampaignWithAd({ advertiserId: saoPaulo.id, publisherIds: [shop.id], bidModel: "cpc", bid: 0.4, startDate: daysFromToday(-10) });
    const target: ServedTarget = { ...made, publisher: shop };
    const day = utcDay(Date.now() - 3 * DAY_MS);
    // 23:00 UTC on `day` is 20:00 there (UTC−3), 02:30 UTC the next day is 23:30 there: both on `day`.
    for (const at of [new Date(`${day}T23:00:00Z`), new Date(`${addDays(day, 1)}T02:30:00Z`)]) {
      const session = `ledger-${randomUUID()}`;
      const outcome = await recordAndSettle({
        claims: servedClaims(target, session, { kind: "click", at }),
        body: { session_id: session },
        userAgent: CHROME,
        now: at,
      });
      expect(outcome.spendMicros).toBe(400_000n);
    }
    await topUpWallet({ actor: staff, accountId: saoPaulo.id, amount: 5, requestId: `req-${randomUUID()}` });
    const stored = await db.walletTopUp.findFirstOrThrow({ where: { accountId: saoPaulo.id } });
    const ledger = await walletLedger({ actor: staff, accountId: saoPaulo.id, startDate: addDays(day, -1), endDate: daysFromToday(1) });
    expect(ledger.timeZone).toBe("America/Sao_Paulo");
    const localTopUp = new Date(stored.at.getTime() - 3 * 3_600_000).toISOString().slice(0, 19).replace("T", " ");
    expect(ledger.rows.map(({ when, entry, amount }) => ({ when, entry, amount }))).toEqual([
      { when: localTopUp, entry: "top-up", amount: 5 },
      { when: day, entry: "charges", amount: -0.8 },
    ]);
  });
});
