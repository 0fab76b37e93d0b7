"use client";
// The orders attribution or settling's rules set aside in the overview's range: counted apart, so
// the figures above them say what they leave out.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../trpc-client";
import type { Range } from "./figures";
import { useMoments, whole } from "./figures";

/** The rules settling sets orders aside by, in words. */
const RULES: Record<string, string> = {
  order_total_limit: "order total over the limit",
  line_quantity_limit: "line quantity over the limit",
  orders_per_session: "too many orders from one session",
};

export function SetAsideNotices({ range, accountId }: { range: Range; accountId: string }) {
  const trpc = useTRPC();
  const setAside = useQuery(trpc.stats.setAsideOrders.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));
  const setAsideByRule = useQuery(trpc.stats.ordersSetAsideByRule.queryOptions({ ...range, ...(accountId ? { accountId } : {}) }));
  const { minute } = useMoments();
  return (
    <>
      {setAside.data && setAside.data.total > 0 ? (
        <section className="notice" aria-label="Orders set aside">
          <h2>Orders set aside</h2>
          <p>
            {setAside.data.total === 1 ? "1 order" : `${whole.format(setAside.data.total)} orders`} in this range were set aside, by a rule or because they
            could not be processed, and are missing from these figures. Every other order was attributed. The latest:
          </p>
          <ul>
            {setAside.data.latest.map((order) => (
              <li key={`${order.publisher_id}/${order.order_id}`}>
                order <code>{order.order_id}</code> of <code>{order.publisher_id}</code>, received {minute(order.received_at)}: {order.reason}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {setAsideByRule.data && setAsideByRule.data.total > 0 ? (
        <section className="notice" aria-label="Orders set aside by rule">
          <h2>Orders set aside by rule</h2>
          <p>
            {setAsideByRule.data.total === 1 ? "1 order" : `${whole.format(setAsideByRule.data.total)} orders`} in this range broke a rule when they were
            settled and are missing from these figures (
            {Object.entries(setAsideByRule.data.byRule)
              .map(([rule, count]) => `${RULES[rule] ?? rule}: ${whole.format(count)}`)
              .join(", ")}
            ). A publisher sets its limits on its account page. The latest:
          </p>
          <ul>
            {setAsideByRule.data.latest.map((order) => (
              <li key={`${order.publisher_id}/${order.order_id}/${order.received_at.toISOString()}`}>
                order <code>{order.order_id}</code> of <code>{order.publisher_id}</code>, received {minute(order.received_at)} (
                {RULES[order.rule] ?? order.rule}): {order.reason}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
