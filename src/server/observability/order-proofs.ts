// What proved the orders this process accepted (docs/conversions.md, "Verified orders"): counted
// here, served by /api/metrics (metrics.ts registers it), so an operator sees a publisher's
// servers still signing with a rotated secret, or tokens that stopped matching, without the logs.
import { Counter } from "prom-client";

/** api_key, order_token (the current secret), order_token_previous_secret (one in its grace period), order_token_mismatch (kept unverified), none. */
export type OrderProofOutcome = "api_key" | "order_token" | "order_token_previous_secret" | "order_token_mismatch" | "none";

const holder = globalThis as unknown as { tallyOrderProofs?: Counter<"proof"> };

export function orderProofCounter(): Counter<"proof"> {
  holder.tallyOrderProofs ??= new Counter({
    name: "tally_order_proofs_total",
    help: "Orders accepted (202, repeats included) by what proved them: api_key, order_token, order_token_previous_secret, order_token_mismatch, none.",
    labelNames: ["proof"] as const,
    registers: [],
  });
  return holder.tallyOrderProofs;
}

export function countOrderProof(proof: OrderProofOutcome): void {
  orderProofCounter().inc({ proof });
}
