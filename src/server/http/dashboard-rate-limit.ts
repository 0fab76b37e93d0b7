// Heavy dashboard work a minute, per signed-in person and per account (all its people; staff
// together): table files (TALLY_TABLE_FILES_PER_MINUTE_PER_*) and the figures over a date range
// (TALLY_DASHBOARD_FIGURES_PER_MINUTE_PER_*). Counted in Postgres (rate-limiter-flexible over
// rate_limits, as report-rate-limit.ts), so a person spreading requests over many processes still
// meets one limit; once a window is spent, this process refuses it from memory until it ends. A
// person past their own limit is refused before the account is counted, so one person's flood
// never spends the account's allowance that the others share.
import { RateLimiterRes } from "rate-limiter-flexible";
import { env } from "@/env";
import { countDashboardRefusal, type DashboardRefusal, type DashboardWork } from "@/server/core/counters";
import { TallyError } from "@/server/core/errors";
import { postgresRateLimiter } from "@/server/db/rate-limit-store";
import { type RatePolicy, type RateState, rateLimitFields } from "./rate-limit-fields";

const WINDOW_SECONDS = 60;

interface Counter {
  consume(key: string): Promise<RateLimiterRes>;
}

interface Limit {
  policy: RatePolicy;
  counter: Counter;
}

interface Limits {
  policies: RatePolicy[];
  user: Limit | null;
  account: Limit | null;
}

const holder = globalThis as unknown as { tallyDashboardRateLimits?: Map<DashboardWork, Limits> };

function quotas(work: DashboardWork): { user: number; account: number } {
  const config = env();
  return work === "table_file"
    ? { user: config.TALLY_TABLE_FILES_PER_MINUTE_PER_USER, account: config.TALLY_TABLE_FILES_PER_MINUTE_PER_ACCOUNT }
    : { user: config.TALLY_DASHBOARD_FIGURES_PER_MINUTE_PER_USER, account: config.TALLY_DASHBOARD_FIGURES_PER_MINUTE_PER_ACCOUNT };
}

function limitOf(work: DashboardWork, who: "user" | "account", quota: number): Limit | null {
  if (quota === 0) return null;
  const policy = { name: `${who}-per-minute`, quota, windowSeconds: WINDOW_SECONDS };
  const counter = postgresRateLimiter({ points: quota, duration: WINDOW_SECONDS, keyPrefix: `dashboard-${work}-${who}`, blockInMemory: true });
  return { policy, counter };
}

function limits(work: DashboardWork): Limits {
  holder.tallyDashboardRateLimits ??= new Map();
  let found = holder.tallyDashboardRateLimits.get(work);
  if (!found) {
    const quota = quotas(work);
    const user = limitOf(work, "user", quota.user);
    const account = limitOf(work, "account", quota.account);
    found = { policies: [user?.policy, account?.policy].filter((policy) => policy !== undefined), user, account };
    holder.tallyDashboardRateLimits.set(work, found);
  }
  return found;
}

/** Forgets the limiters (and their in-memory refusals) and re-reads the limits (tests change them). */
export function resetDashboardRateLimits(): void {
  holder.tallyDashboardRateLimits = undefined;
}

/** What counting one request decided: the RateLimit fields for the answer, and the 429 past a limit. */
export interface DashboardRateDecision {
  fields: Record<string, string>;
  refusal: TallyError | null;
  /** Which limit refused it, when one did. */
  reason: DashboardRefusal | null;
}

async function counted(limit: Limit, key: string): Promise<{ allowed: boolean; state: RateState }> {
  try {
    const result = await limit.counter.consume(key);
    return { allowed: true, state: { policy: limit.policy, remaining: result.remainingPoints, msBeforeReset: result.msBeforeNext } };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { allowed: false, state: { policy: limit.policy, remaining: 0, msBeforeReset: rejection.msBeforeNext } };
  }
}

const WHAT: Record<DashboardWork, string> = { table_file: "table files", figures: "requests for the dashboard's figures" };

/** Counts one request of heavy `work` by `user` of `account` (`staff` for account managers). */
export async function countDashboardWork(work: DashboardWork, who: { user: string; account: string }): Promise<DashboardRateDecision> {
  const { policies, user, account } = limits(work);
  const states: RateState[] = [];
  for (const [name, limit, key] of [
    ["user", user, who.user],
    ["account", account, who.account],
  ] as const) {
    if (!limit) continue;
    const outcome = await counted(limit, key);
    states.push(outcome.state);
    if (outcome.allowed) continue;
    const reason = name === "user" ? "user_rate" : "account_rate";
    countDashboardRefusal(work, reason);
    const whose = name === "user" ? "you" : "this account's people together";
    const fields = rateLimitFields({ policies, states });
    return {
      fields,
      reason,
      refusal: new TallyError(
        "too_many_requests",
        `too many ${WHAT[work]}: ${whose} may make ${limit.policy.quota} a minute; retry after the wait in Retry-After`,
        { retryAfterSeconds: Math.max(1, Math.ceil(outcome.state.msBeforeReset / 1000)), fields },
      ),
    };
  }
  return { fields: states.length > 0 ? rateLimitFields({ policies, states }) : {}, refusal: null, reason: null };
}
