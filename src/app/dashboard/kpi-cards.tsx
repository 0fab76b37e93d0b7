"use client";
// The figure cards of the overview and the campaign page: a few headline figures, the rest in
// folded groups; each card's change against the period before, coloured and said in words by the
// figure's good direction (store/metric-columns.ts), and that period named once above them.
import { type Audience, METRIC_CATALOGUE, type MetricField, metricFor } from "@/server/store/metric-columns";
import type { Metrics } from "@/server/store/metrics";
import { type Change, describeChange, notComparable, periodCoverage, periodName, relativeChange } from "./comparison";
import { formatFigure, formatMoney, whole } from "./figures";
import type { Range } from "./url-views";

const ARROWS = { up: "▲", down: "▼", flat: "=" } as const;

export type PreviousPeriod = Range & { total: Metrics };

/** What a person reads first: money in and out, what it bought, and the traffic behind it. */
const HEADLINE: MetricField[] = ["ad_revenue", "sales_revenue", "roas", "conversions_total", "impressions_total", "clicks_total"];
/** The rest, folded by what they answer. */
const GROUPS: { name: string; hint: string; fields: MetricField[] }[] = [
  { name: "Traffic", hint: "views, CTR, units", fields: ["views_total", "ctr", "click_conversion_rate", "units_sold"] },
  // Each order goes to the touch that won it: a click, else a view or an impression (docs/conversions.md);
  // halo and new-to-brand are apart from conversions and sales (docs/reports.md).
  {
    name: "Attribution",
    hint: "click and view, halo, new-to-brand",
    fields: [
      "conversions_click",
      "conversions_view",
      "sales_revenue_click",
      "sales_revenue_view",
      "halo_conversions",
      "halo_sales_revenue",
      "ntb_conversions",
      "ntb_sales_revenue",
      "ntb_rate",
    ],
  },
  // "—" where nothing was bought to divide by (docs/reports.md, "Cost metrics").
  { name: "Cost", hint: "eCPM, CPC, CPA, ACoS", fields: ["ecpm", "avg_cpc", "cpa", "acos"] },
  // Filtered beacons, and orders that came with no proof, counted apart from the credited ones (docs/conversions.md).
  { name: "Quality", hint: "invalid, unverified", fields: ["invalid_events", "unverified_conversions", "unverified_sales_revenue"] },
];

interface CardsProps {
  total: Metrics;
  previous?: PreviousPeriod | null;
  /** The account's code, or null when the figures mix currencies (every account at once). */
  currency: string | null;
  audience: Audience;
  /** The first day the figures could start (the campaign's start, or the first day with any figure), to tell a period before it did not run in. */
  started: string | null;
  /** The start in words: "this campaign started", "the first day with figures". */
  start: string;
}

function Card({
  field,
  value,
  change,
  audience,
  currency,
}: {
  field: MetricField;
  value: number | null;
  change: Change | null;
  audience: Audience;
  currency: string | null;
}) {
  const { label, format } = metricFor(field, audience);
  return (
    <div className="kpi" data-kpi={label}>
      <span className="kpi-label">{label}</span>
      <span className="kpi-value">{formatFigure(value, format, currency)}</span>
      {change ? (
        <span className={`kpi-change ${change.verdict ?? "none"}`} data-change={change.text} data-verdict={change.verdict ?? "none"}>
          <span aria-hidden="true">
            {change.direction ? `${ARROWS[change.direction]} ` : ""}
            {change.text}
          </span>
          <span className="visually-hidden">{change.words}</span>
        </span>
      ) : null}
    </div>
  );
}

/** "2 better, 1 worse": what a folded group holds, so a change worth a look is not hidden. */
function tally(changes: (Change | null)[]): string {
  const better = changes.filter((c) => c?.verdict === "better").length;
  const worse = changes.filter((c) => c?.verdict === "worse").length;
  return [better ? `${better} better` : "", worse ? `${worse} worse` : ""].filter(Boolean).join(", ");
}

export function KpiCards({ total, previous, currency, audience, started, start }: CardsProps) {
  const coverage = previous ? periodCoverage(previous, started) : null;
  // A sum over fewer days than the range is no fair comparison; a ratio (CTR, ROAS, a cost per…) is, over the days it ran.
  const changeOf = (field: MetricField): Change | null => {
    if (!previous) return null;
    if (coverage && METRIC_CATALOGUE[field].ratio === undefined) return notComparable;
    return describeChange(relativeChange(total[field], previous.total[field]), metricFor(field, audience).good);
  };
  const card = (field: MetricField) => <Card key={field} field={field} value={total[field]} change={changeOf(field)} audience={audience} currency={currency} />;
  return (
    <>
      {previous ? (
        <p className="kpi-period" data-testid="compared-with">
          Changes against the period before, {periodName(previous)}: <span className="better">green is better</span>,{" "}
          <span className="worse">red is worse</span>.
        </p>
      ) : null}
      {coverage ? (
        <p className="notice" data-testid="partly-before-start">
          The period before is partly before {start}: {coverage.ran} of {coverage.days} days. Counts and money are not compared; ratios (CTR, ROAS, costs per
          result) are, over the days it ran.
        </p>
      ) : null}
      <section className="figures" aria-label="Totals">
        <div className="kpis headline">{HEADLINE.map(card)}</div>
        {GROUPS.map((group) => {
          const summary = tally(group.fields.map(changeOf));
          return (
            <details className="kpi-group" key={group.name} data-group={group.name}>
              <summary>
                {group.name} <span className="muted">({group.hint})</span>
                {summary ? <span className="kpi-tally"> · {summary}</span> : null}
              </summary>
              <div className="kpis">{group.fields.map(card)}</div>
            </details>
          );
        })}
      </section>
      {total.uncredited_conversions > 0 ? (
        <p className="muted" data-testid="uncredited">
          {total.uncredited_conversions === 1 ? "1 unverified conversion" : `${whole.format(total.uncredited_conversions)} unverified conversions`} (
          {formatMoney(total.uncredited_sales_revenue, currency)} in sales) {total.uncredited_conversions === 1 ? "is" : "are"} not credited: they came without
          proof, and the publisher credits only proven orders. Conversions, sales revenue and ROAS leave them out.
        </p>
      ) : null}
    </>
  );
}
