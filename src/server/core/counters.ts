// Every count Tally keeps of what happened in a process (prom-client counters): requests by
// outcome, refusals by limit, leases, downloads cut, what proved each order, failed pipeline steps.
// The code where it happens counts here; src/server/upkeep/prometheus.ts registers them all
// beside its gauges and serves them at /api/metrics, so counting never imports the reads of
// the database that the gauges need. What to alert on is in docs/operations.md.
import { Counter } from "prom-client";

/** The /v1 routes, as counted: a fixed set, so a scanner's paths cannot grow the label set. */
export type CountedRoute = "ads" | "beacon" | "conversion" | "other";
/** The /v1 rate limits (src/server/http/rate-limits.ts), as counted. */
export type V1Limit = "address" | "publisher" | "publisher_address" | "api_key";
/** The sign-in limits (src/server/accounts/sign-in-limits.ts), as a refusal is counted. */
export type SignInLimit = "address" | "backoff" | "new_address";
/** Why a report request was refused before any report was read (docs/operations.md, "Report route limits"). */
export type ReportRefusal = "rate" | "key_downloads" | "account_downloads";
/** Why a running download was cut. */
export type DownloadCut = "stalled" | "too_long";
/** The daily ceilings on unproven intake (src/server/pipeline/accept/intake-ceiling.ts): what was refused, and by which of its two limits. */
export type IntakeCeilingRefusal = { intake: "orders" | "beacons"; limit: "count" | "bytes" };
/** api_key, order_token (the current secret), order_token_previous_secret (one in its grace period), order_token_mismatch (kept unverified), none. */
export type OrderProofOutcome = "api_key" | "order_token" | "order_token_previous_secret" | "order_token_mismatch" | "none";

// Over 80 lines on purpose: one table of every counter Tally keeps, each with the help /api/metrics shows.
function createCounters() {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Counter<L>({ name, help, labelNames, registers: [] });
  const counters = {
    requests: counter(
      "tally_v1_requests_total",
      "Requests to the /v1 routes by route and outcome: accepted (2xx), refused (4xx), unavailable (503), failed (other 5xx).",
      ["route", "outcome"],
    ),
    limitRefusals: counter(
      "tally_v1_limit_refusals_total",
      "/v1 requests answered 429 by this process, by the limit that refused them: address, publisher, publisher_address, api_key.",
      ["limit"],
    ),
    lightAdmissions: counter(
      "tally_v1_limit_light_admissions_total",
      "/v1 requests admitted while their publisher's limit was spent, because their address had made few requests for that publisher.",
    ),
    limitLeases: counter("tally_v1_limit_leases_total", "Statements that took shares of the shared /v1 limits from Postgres, by outcome (taken, failed).", [
      "outcome",
    ]),
    limitLeaseKeys: counter(
      "tally_v1_limit_lease_keys_total",
      "Keys (addresses, publishers, ...) the lease statements asked Postgres for, by outcome (taken, failed).",
      ["outcome"],
    ),
    reportRefusals: counter(
      "tally_report_requests_refused_total",
      "Report requests answered 429 by reason: rate (requests per key or person), key_downloads (downloads running on the key or person), account_downloads (the account's share of download connections).",
      ["reason"],
    ),
    downloadsCut: counter(
      "tally_report_downloads_cut_total",
      "XLSX downloads cut by this process, their database connection given back: stalled (the client took nothing for TALLY_REPORT_DOWNLOAD_STALL_SECONDS), too_long (past TALLY_REPORT_DOWNLOAD_MAX_SECONDS).",
      ["reason"],
    ),
    signInRefusals: counter(
      "tally_sign_in_refusals_total",
      "Sign-in attempts refused (429) before the password was checked, by limit: address, backoff (one e-mail from one address), new_address (an e-mail guessed from many addresses).",
      ["limit"],
    ),
    orderProofs: counter(
      "tally_order_proofs_total",
      "Orders accepted (202, repeats included) by what proved them: api_key, order_token, order_token_previous_secret, order_token_mismatch, none.",
      ["proof"],
    ),
    intakeCeilingRefusals: counter(
      "tally_intake_ceiling_refusals_total",
      "Unproven orders and beacons answered 429 because their publisher's UTC day reached its ceiling, by intake (orders, beacons) and limit (count, bytes).",
      ["intake", "limit"],
    ),
    dashboardRefusals: counter(
      "tally_dashboard_refusals_total",
      "Heavy dashboard requests refused by work (table_file, figures) and reason: user_rate, account_rate (requests a minute), user_busy, account_busy, process_busy (table files at once), too_large (bytes or cells past the table file's limit).",
      ["work", "reason"],
    ),
    tableFilesCut: counter(
      "tally_table_files_cut_total",
      "Table files cut past TALLY_TABLE_FILE_MAX_SECONDS (written too slowly or not taken by their client), their slot given back.",
    ),
    stepFailures: counter(
      "tally_pipeline_step_failures_total",
      "Pipeline steps that failed and will be tried again (the database's or the process's fault, not an item's), by job.",
      ["job"],
    ),
    oauthTokenRefusals: counter(
      "tally_oauth_token_refusals_total",
      "Token requests refused (429) by limit: address (wrong secrets for a client from one source), client (a source that failed, while the client is guessed from many), requests (a client's right secrets a minute).",
      ["limit"],
    ),
    reportJobsRefused: counter(
      "tally_report_jobs_refused_total",
      "POST /report/jobs answered 429 because the account already had TALLY_REPORT_JOBS_PER_ACCOUNT jobs queued or running.",
    ),
    reportJobsDropped: counter(
      "tally_report_jobs_dropped_total",
      "Finished report jobs deleted, file and row, before their 7 days because their account asked for more than TALLY_REPORT_JOBS_KEPT_PER_ACCOUNT.",
    ),
  };
  for (const reason of ["rate", "key_downloads", "account_downloads"] satisfies ReportRefusal[]) counters.reportRefusals.inc({ reason }, 0);
  for (const reason of ["stalled", "too_long"] satisfies DownloadCut[]) counters.downloadsCut.inc({ reason }, 0);
  return counters;
}

const holder = globalThis as unknown as { tallyCounters?: ReturnType<typeof createCounters> };

function counters() {
  holder.tallyCounters ??= createCounters();
  return holder.tallyCounters;
}

/** Every counter, for the registry that serves them (upkeep/prometheus.ts). */
export const allCounters = (): Counter<string>[] => Object.values(counters()) as Counter<string>[];

export function countRequest(route: CountedRoute, status: number): void {
  const outcome = status < 400 ? "accepted" : status < 500 ? "refused" : status === 503 ? "unavailable" : "failed";
  counters().requests.inc({ route, outcome });
}

/** A /v1 request answered 429 by `limit`. */
export function countLimitRefusal(limit: V1Limit): void {
  counters().limitRefusals.inc({ limit });
}

/** A /v1 request let in past its publisher's spent limit, its address being light on that publisher. */
export function countLightAdmission(): void {
  counters().lightAdmissions.inc();
}

/** A lease statement of the shared limits, and the keys it asked for. */
export function countLimitLease(outcome: "taken" | "failed", keys: number): void {
  counters().limitLeases.inc({ outcome });
  counters().limitLeaseKeys.inc({ outcome }, keys);
}

/** A sign-in refused (429) before its password was checked, by the limit that refused it. */
export function countSignInRefusal(limit: SignInLimit): void {
  counters().signInRefusals.inc({ limit });
}

export function countReportRefusal(reason: ReportRefusal): void {
  counters().reportRefusals.inc({ reason });
}

export function countDownloadCut(reason: DownloadCut): void {
  counters().downloadsCut.inc({ reason });
}

/** An order accepted (202), by what proved it (docs/conversions.md, "Verified orders"). */
export function countOrderProof(proof: OrderProofOutcome): void {
  counters().orderProofs.inc({ proof });
}

/** An unproven order or a beacon refused (429) past its publisher's daily ceiling. */
export function countIntakeCeilingRefusal(refusal: IntakeCeilingRefusal): void {
  counters().intakeCeilingRefusals.inc(refusal);
}

/** A pipeline step that failed for a reason that is not an item's; `job` is one of Tally's own job names (settle, attribution, export, upkeep), never input. */
export function countStepFailure(job: string): void {
  counters().stepFailures.inc({ job });
}

/** The limits of POST /oauth/token (src/server/accounts/oauth-token-limits.ts), as a refusal is counted. */
export type OauthTokenLimit = "address" | "client" | "requests";

/** A token request refused (429) by `limit`. */
export function countOauthTokenRefusal(limit: OauthTokenLimit): void {
  counters().oauthTokenRefusals.inc({ limit });
}

/** A report job refused (429) for its account's unfinished jobs. */
export function countReportJobRefused(): void {
  counters().reportJobsRefused.inc();
}

/** Finished report jobs dropped past their account's kept bound. */
export function countReportJobsDropped(jobs: number): void {
  counters().reportJobsDropped.inc(jobs);
}

/** Heavy dashboard work, as its refusals are counted: table files, and the figures over a date range. */
export type DashboardWork = "table_file" | "figures";
/** Why heavy dashboard work was refused (docs/operations.md, "Dashboard limits"). */
export type DashboardRefusal = "user_rate" | "account_rate" | "user_busy" | "account_busy" | "process_busy" | "too_large";

export function countDashboardRefusal(work: DashboardWork, reason: DashboardRefusal): void {
  counters().dashboardRefusals.inc({ work, reason });
}

export function countTableFileCut(): void {
  counters().tableFilesCut.inc();
}
