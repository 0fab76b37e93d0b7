"use client";
// A campaign's budget and pacing as the campaign list's columns and the campaign page's cards: bid,
// daily budget, today's spend against it as a meter, the "out of budget" and "no active ads" flags,
// and the advertiser's wallet. Figures are the server's (src/server/campaigns/pacing.ts).
import type { AdvertiserPacing, CampaignPacing } from "@/server/campaigns/pacing-output";
import { formatMoney, percent } from "../figures";
import styles from "./pacing.module.css";

const days = new Intl.NumberFormat("en", { maximumFractionDigits: 1 });

const STOPPED_BY: Record<NonNullable<CampaignPacing["stoppedBy"]>, string> = {
  campaign_budget: "the campaign's daily budget is spent",
  advertiser_budget: "the advertiser's daily budget is spent",
  wallet: "the advertiser's wallet is empty",
};

export function BidCell({ pacing }: { pacing: CampaignPacing }) {
  return (
    <span className={styles.nowrap}>
      {pacing.bidModel.toUpperCase()} {formatMoney(pacing.bid, pacing.currency)}
    </span>
  );
}

export function BudgetCell({ pacing }: { pacing: CampaignPacing }) {
  return <span className={styles.nowrap}>{pacing.dailyBudget === null ? "No daily budget" : formatMoney(pacing.dailyBudget, pacing.currency)}</span>;
}

/** Today's spend against the daily budget: a meter with its figures in words, or the spend alone without a budget. */
export function PacingBar({ pacing, label = "Spend today" }: { pacing: CampaignPacing; label?: string }) {
  const spent = formatMoney(pacing.spentToday, pacing.currency);
  if (pacing.dailyBudget === null || pacing.shareSpent === null) return <span className={styles.caption}>{spent} today, no daily budget</span>;
  const share = Math.min(1, pacing.shareSpent);
  const words = `${spent} of ${formatMoney(pacing.dailyBudget, pacing.currency)} (${percent.format(pacing.shareSpent)})`;
  return (
    <div className={styles.meter}>
      <meter
        aria-label={label}
        min={0}
        max={pacing.dailyBudget}
        high={pacing.dailyBudget * 0.999}
        value={Math.min(pacing.spentToday, pacing.dailyBudget)}
        aria-valuetext={words}
        className={`${styles.track} ${share >= 1 ? styles.full : ""}`}
      />
      <span className={styles.caption}>{words}</span>
    </div>
  );
}

/**
 * When serving resumes: a daily budget at the start of the advertiser's next local day ("00:00
 * America/Sao_Paulo": budgets are the advertiser's local days), an empty wallet once money is added.
 */
const resumes = (pacing: CampaignPacing) =>
  pacing.stoppedBy === "wallet" ? "Not served until money is added" : `Not served until ${pacing.resetTime} ${pacing.timeZone} (the advertiser's next day)`;

export function PacingFlags({ pacing }: { pacing: CampaignPacing }) {
  if (!pacing.outOfBudgetToday && !pacing.activeWithoutActiveAds) return null;
  return (
    <span className={styles.flags}>
      {pacing.outOfBudgetToday && pacing.stoppedBy ? (
        <span className={`badge ${styles.stopped}`} title={`${resumes(pacing)}: ${STOPPED_BY[pacing.stoppedBy]}`}>
          Out of budget today
        </span>
      ) : null}
      {pacing.activeWithoutActiveAds ? (
        <span className={`badge ${styles.idle}`} title="Active, but none of its ads is active: nothing to serve">
          No active ads
        </span>
      ) : null}
    </span>
  );
}

/** The campaign page's budget card: bid, daily budget, today's meter and flags, and why serving stopped. */
export function PacingCard({ pacing }: { pacing: CampaignPacing }) {
  return (
    <section className="card" aria-label="Budget and pacing">
      <h2>
        Budget today ({pacing.day} {pacing.timeZone})
      </h2>
      <dl>
        <dt>Bid</dt>
        <dd>
          <BidCell pacing={pacing} />
        </dd>
        <dt>Daily budget</dt>
        <dd>
          <BudgetCell pacing={pacing} />
        </dd>
      </dl>
      <PacingBar pacing={pacing} />
      <PacingFlags pacing={pacing} />
      {pacing.stoppedBy ? (
        <p className="muted">
          {resumes(pacing)}: {STOPPED_BY[pacing.stoppedBy]}.
        </p>
      ) : null}
    </section>
  );
}

/** The advertiser's wallet: its balance, and how many days it lasts at the last 7 days' spend. */
export function WalletCard({ wallet }: { wallet: AdvertiserPacing }) {
  return (
    <section className="card" aria-label="Wallet">
      <h2>Wallet</h2>
      <dl>
        <dt>Balance</dt>
        <dd>{formatMoney(wallet.walletBalance, wallet.currency)}</dd>
        <dt>Spend a day, last 7 days</dt>
        <dd>{formatMoney(wallet.averageDailySpend, wallet.currency)}</dd>
        <dt>Days left</dt>
        <dd>{wallet.daysLeft === null ? "— (no spend in the last 7 days)" : `${days.format(wallet.daysLeft)} days`}</dd>
      </dl>
      {wallet.walletEmpty ? (
        <p>
          <span className={`badge ${styles.stopped}`}>Wallet empty</span> No ad of this advertiser is served until money is added.
        </p>
      ) : null}
    </section>
  );
}

/** Both cards side by side. */
export function PacingCards({ pacing, wallet }: { pacing: CampaignPacing | null; wallet: AdvertiserPacing | null }) {
  if (!pacing && !wallet) return null;
  return (
    <div className={styles.pacing}>
      {pacing ? <PacingCard pacing={pacing} /> : null}
      {wallet ? <WalletCard wallet={wallet} /> : null}
    </div>
  );
}
