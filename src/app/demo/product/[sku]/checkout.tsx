"use client";

// The demo store's checkout: one product, bought at once. It shows what a publisher's order
// confirmation does with the Tally SDK: hash the shopper's identity in the browser
// (Tally.hashIdentity), have the store's server sign the order (an order token, so it is proven and
// credited), then send the conversion and wait for the service's answer, so the page
// can show the 202 messages or the 422 validation errors instead of a silent beacon.
import { type FormEvent, type InputHTMLAttributes, useId, useState } from "react";
import { Problem } from "@/app/problem";
import { Busy } from "@/app/query-state";
import type { TallyApi, TallyConversionReply, TallyOrder } from "@/sdk/tally";
import styles from "../../demo.module.css";
import { loadTally } from "../../load-tally";
import { DEMO_PUBLISHER_ID, DEMO_SITE, formatPrice } from "../../products";
import { signDemoOrder } from "./sign-order";

const COUNTRY_CODE = "55";
const MAX_QUANTITY = 99;

type Outcome =
  | { kind: "idle" }
  | { kind: "sending" }
  | { kind: "accepted"; orderId: string; messages: string[] }
  | { kind: "invalid"; orderId: string; errors: { path: string; message: string }[] }
  | { kind: "failed"; message: string };

/** "demo-" and 12 random hex digits: unique enough for a demo, and readable on screen. */
function newOrderId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `demo-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function messagesOf(body: unknown): string[] {
  const messages = typeof body === "object" && body !== null ? (body as { messages?: unknown }).messages : undefined;
  return Array.isArray(messages) ? messages.filter((m): m is string => typeof m === "string") : [];
}

/** Ajv's entries of a 422 answer; the root object's instancePath is "". */
function validationErrorsOf(body: unknown): { path: string; message: string }[] | null {
  if (!Array.isArray(body)) return null;
  return body.map((entry: unknown) => {
    const e = (typeof entry === "object" && entry !== null ? entry : {}) as { instancePath?: unknown; message?: unknown };
    return {
      path: typeof e.instancePath === "string" && e.instancePath ? e.instancePath : "(order)",
      message: typeof e.message === "string" ? e.message : "is not valid",
    };
  });
}

/** The `{ error: { code, message } }` of the service's other refusals, as one sentence. */
function refusalOf(reply: TallyConversionReply): string {
  const error = typeof reply.body === "object" && reply.body !== null ? (reply.body as { error?: unknown }).error : undefined;
  const { code, message } = (typeof error === "object" && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  if (reply.status === 404) return "The order was not recorded: the conversion route (/v1/beacon/conversion) is not there yet.";
  const detail = [typeof code === "string" ? code : null, typeof message === "string" ? message : null].filter(Boolean).join(": ");
  return `The order was not recorded: the service answered ${reply.status}${detail ? ` (${detail})` : ""}.`;
}

function outcomeOf(reply: TallyConversionReply, orderId: string): Outcome {
  if (reply.status === 202) return { kind: "accepted", orderId, messages: messagesOf(reply.body) };
  const errors = reply.status === 422 ? validationErrorsOf(reply.body) : null;
  return errors ? { kind: "invalid", orderId, errors } : { kind: "failed", message: refusalOf(reply) };
}

async function placeOrder(form: FormData, sku: string, price: number): Promise<Outcome> {
  const field = (name: string) => String(form.get(name) ?? "");
  let tally: TallyApi;
  try {
    tally = await loadTally();
  } catch {
    return { kind: "failed", message: "The order was not sent: the Tally SDK (/sdk/tally.js) could not be loaded." };
  }
  let hashes: Awaited<ReturnType<TallyApi["hashIdentity"]>>;
  try {
    hashes = await tally.hashIdentity(
      { email: field("email"), phone: field("phone"), taxId: field("taxId"), firstName: field("firstName"), lastName: field("lastName") },
      { countryCode: COUNTRY_CODE },
    );
  } catch {
    return { kind: "failed", message: "The order was not sent: hashing needs Web Crypto, which the browser only offers over https or on localhost." };
  }
  // The same visitor id as the sponsored-ads tracker (both read Tally.sessionId()), so the order
  // joins the impressions and clicks of this browser.
  const sessionId = tally.sessionId();
  const orderId = newOrderId();
  // The store's server signs the order, so Tally takes it as proven and credits it.
  const signed = await signDemoOrder(orderId, sku, Number(field("quantity"))).catch(() => null);
  // Without a usable e-mail, email_hashed is missing and the service answers 422: the demo sends
  // such an order anyway, to show that answer, hence the cast.
  const order = {
    publisher_id: DEMO_PUBLISHER_ID,
    // Stable per shopper without putting the e-mail on the wire.
    user_id: hashes.email_hashed ? `demo-${hashes.email_hashed.slice(0, 16)}` : `demo-guest-${sessionId}`,
    session_id: sessionId,
    order_id: orderId,
    created_at: new Date().toISOString(),
    channel: "online store",
    // Demo Market has two sites, so each order says which one sold it.
    brand: DEMO_SITE,
    items: [{ sku, product_id: null, seller_id: null, quantity: Number(field("quantity")), price, promotional_price: price }],
    ...(signed ? { order_token: signed.token } : {}),
    ...hashes,
  } as TallyOrder;
  try {
    return outcomeOf(await tally.conversion(order, { waitForReply: true }), orderId);
  } catch {
    return { kind: "failed", message: "The order was not recorded: the Tally service could not be reached." };
  }
}

// Over 80 lines on purpose: the demo checkout, its form and the conversion it posts, in the order a shopper meets them.
export function Checkout({ sku, price }: { sku: string; price: number | null }) {
  const id = useId();
  const [quantity, setQuantity] = useState("1");
  const [outcome, setOutcome] = useState<Outcome>({ kind: "idle" });
  const sending = outcome.kind === "sending";

  if (price === null) {
    return <p className={styles.note}>This product has no price, so it cannot be bought here.</p>;
  }

  const units = Number(quantity);
  const total = Number.isInteger(units) && units >= 1 && units <= MAX_QUANTITY ? formatPrice(units * price) : null;

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (sending) return;
    const form = new FormData(event.currentTarget);
    setOutcome({ kind: "sending" });
    setOutcome(await placeOrder(form, sku, price));
  };

  const input = (name: string, label: string, props: InputHTMLAttributes<HTMLInputElement>) => (
    <div className={styles.field}>
      <label htmlFor={`${id}-${name}`}>{label}</label>
      <input id={`${id}-${name}`} name={name} {...props} />
    </div>
  );

  return (
    <section className={styles.checkout} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className={styles.sectionTitle}>
        Checkout
      </h2>
      <form onSubmit={onSubmit}>
        <div className={styles.checkoutFields}>
          <div className={styles.field}>
            <label htmlFor={`${id}-quantity`}>Quantity</label>
            <input
              id={`${id}-quantity`}
              name="quantity"
              type="number"
              inputMode="numeric"
              min={1}
              max={MAX_QUANTITY}
              step={1}
              required
              value={quantity}
              onChange={(event) => setQuantity(event.target.value)}
            />
          </div>
          {input("email", "E-mail", { type: "email", defaultValue: "maria.silva@example.com", autoComplete: "email" })}
          {input("phone", "Phone", { type: "tel", defaultValue: "(11) 98765-4321", autoComplete: "tel" })}
          {input("firstName", "First name", { defaultValue: "Maria", autoComplete: "given-name" })}
          {input("lastName", "Last name", { defaultValue: "Silva", autoComplete: "family-name" })}
          {input("taxId", "Tax id (CPF)", { defaultValue: "123.456.789-09", autoComplete: "off" })}
        </div>
        <p id={`${id}-note`} className={styles.note}>
          Demo values, editable. The page sends Tally only SHA-256 hashes of these fields, normalised in the browser (phones without a country code are read as
          Brazilian, +55). Clear the e-mail to see how the service answers an invalid order.
        </p>
        <div className={styles.checkoutActions}>
          <button className={styles.button} type="submit" disabled={sending} aria-describedby={`${id}-note`}>
            {sending ? "Placing order…" : "Buy now"}
          </button>
          {total ? <span className={styles.total}>Total {total}</span> : null}
        </div>
      </form>

      {/* Live regions stay in the page so that assistive technology announces what appears in them. */}
      <div role="status" data-testid="checkout-status">
        {sending ? <Busy doing="Sending" what="the order to Tally" /> : null}
        {outcome.kind === "accepted" ? (
          <div className={styles.confirmation}>
            <p className={styles.confirmationTitle}>
              Thank you! Order <strong data-testid="order-id">{outcome.orderId}</strong> is placed.
            </p>
            {outcome.messages.length > 0 ? (
              <ul className={styles.messages}>
                {outcome.messages.map((message) => (
                  <li key={message}>{message}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null}
      </div>
      {/* The service's 422 entries, each "path message", as one sentence a screen reader reads out. */}
      <Problem
        testId="checkout-error"
        about={outcome.kind === "invalid" ? `Order ${outcome.orderId} was refused: the conversion is not valid` : "The order could not be sent"}
        message={
          outcome.kind === "invalid"
            ? outcome.errors.map((error) => `${error.path} ${error.message}`).join("; ")
            : outcome.kind === "failed"
              ? outcome.message
              : null
        }
      />
    </section>
  );
}
