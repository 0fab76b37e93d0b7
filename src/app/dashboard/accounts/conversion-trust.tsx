"use client";
// A publisher's conversion settings on its account page: whether orders without proof are credited, the
// plausibility limits, and the order-signing secret (made or rotated here, shown once).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { ZConversionTrustInput } from "@/server/pipeline/accept/conversions/trust-input";
import { Empty, QueryState } from "../../query-state";
import { useTRPC } from "../../trpc-client";
import { useMoments } from "../figures";
import { useMayChange } from "../may-change";
import { firstProblem } from "./first-problem";

const number = new Intl.NumberFormat("en", { maximumFractionDigits: 6 });

interface Edits {
  creditUnverified?: boolean;
  maxOrderTotal?: string;
  maxLineQuantity?: string;
}

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function ConversionTrust({ publisherId }: { publisherId: string }) {
  const trpc = useTRPC();
  const { minute: when } = useMoments();
  const queryClient = useQueryClient();
  const trust = useQuery(trpc.conversionTrust.get.queryOptions({ publisherId }));
  const mayChange = useMayChange(publisherId);
  const [edits, setEdits] = useState<Edits>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [retireNow, setRetireNow] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.conversionTrust.get.queryKey({ publisherId }) });
  const save = useMutation(
    trpc.conversionTrust.update.mutationOptions({
      onSuccess: () => {
        setEdits({});
        void refresh();
      },
    }),
  );
  const rotate = useMutation(trpc.conversionTrust.rotateSecret.mutationOptions({ onSuccess: () => void refresh() }));

  if (!trust.data)
    return (
      <QueryState query={trust} what="conversion settings">
        {() => null}
      </QueryState>
    );
  const t = trust.data;
  const shown = (edit: string | undefined, value: number | null) => edit ?? (value === null ? "" : String(value));
  const limit = (value: string) => (value.trim() === "" ? null : Number(value));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZConversionTrustInput.safeParse({
      publisherId,
      creditUnverified: edits.creditUnverified ?? t.creditUnverified,
      maxOrderTotal: limit(shown(edits.maxOrderTotal, t.maxOrderTotal)),
      maxLineQuantity: limit(shown(edits.maxLineQuantity, t.maxLineQuantity)),
    });
    if (!parsed.success)
      return setProblem(firstProblem(parsed.error.issues, { maxOrderTotal: "Largest order total", maxLineQuantity: "Largest line quantity" }));
    setProblem(null);
    save.mutate(parsed.data);
  };
  const current = t.secrets.find((secret) => secret.retiresAt === null);
  const creditsUnverified = edits.creditUnverified ?? t.creditUnverified;

  return (
    <section aria-label="Conversions">
      <h3>Conversions</h3>
      <p className="muted">
        Orders can be verified by this account&apos;s API key (sent from your server) or by an order token your server signs with the signing secret below.
        Unverified orders are always shown apart; unless you credit orders without proof, they move no figure.
      </p>
      <p data-testid="credit-unverified-state">
        <strong>Credit orders without proof: {t.creditUnverified ? "on" : "off"}</strong> —{" "}
        {t.creditUnverified
          ? "orders sent from browsers without an order token are credited like proven ones, and still reported as unverified."
          : "orders sent from browsers without an order token are reported as unverified and move no figures."}
      </p>
      <form className="form" noValidate onSubmit={submit} aria-label="Conversion settings">
        {/* A viewer reads the settings in place; the fieldset disables every control at once. */}
        <fieldset className="plain" disabled={!mayChange}>
          <label className="check">
            <input type="checkbox" checked={creditsUnverified} onChange={(e) => setEdits({ ...edits, creditUnverified: e.target.checked })} />
            Credit orders without proof
          </label>
          <div className="toolbar">
            <label>
              Largest order total (empty for Tally&apos;s {number.format(t.defaults.maxOrderTotal)})
              <input
                type="number"
                min="0"
                step="any"
                value={shown(edits.maxOrderTotal, t.maxOrderTotal)}
                onChange={(e) => setEdits({ ...edits, maxOrderTotal: e.target.value })}
              />
            </label>
            <label>
              Largest line quantity (empty for Tally&apos;s {number.format(t.defaults.maxLineQuantity)})
              <input
                type="number"
                min="0"
                step="any"
                value={shown(edits.maxLineQuantity, t.maxLineQuantity)}
                onChange={(e) => setEdits({ ...edits, maxLineQuantity: e.target.value })}
              />
            </label>
            <button type="submit" className="button" disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Save conversion settings"}
            </button>
          </div>
        </fieldset>
      </form>
      <Problem message={problem} />
      <Problem message={save.error?.message} about="The settings could not be saved" />
      {save.isSuccess && Object.keys(edits).length === 0 ? (
        <p role="status" className="muted">
          Saved: {t.creditUnverified ? "every order is credited, unverified ones shown apart" : "only proven orders are credited"}; the limits apply to orders
          settled from now on.
        </p>
      ) : null}

      <h4>Order-signing secret</h4>
      {t.secrets.length === 0 ? (
        <Empty>No signing secret yet: create one to sign order tokens in the checkout.</Empty>
      ) : (
        <ul aria-label="Signing secrets">
          {t.secrets.map((secret) => (
            <li key={secret.id}>
              <code>{secret.prefix}…</code> made {when(secret.createdAt)} ·{" "}
              {secret.retiresAt ? `replaced: verifies tokens until ${when(secret.retiresAt)}` : "current"}
            </li>
          ))}
        </ul>
      )}
      {mayChange ? (
        <div className="toolbar">
          {current ? (
            <label className="check">
              <input type="checkbox" checked={retireNow} onChange={(e) => setRetireNow(e.target.checked)} />
              Stop the current secret at once (it leaked)
            </label>
          ) : null}
          <button
            type="button"
            className="button"
            disabled={rotate.isPending}
            onClick={() =>
              (!current ||
                window.confirm(
                  retireNow ? "Make a new secret and stop the current one now?" : "Make a new secret? The current one keeps working for a while.",
                )) &&
              rotate.mutate({ publisherId, retirePreviousNow: retireNow })
            }
          >
            {current ? "Rotate secret" : "Create secret"}
          </button>
        </div>
      ) : null}
      <Problem message={rotate.error?.message} about="The secret could not be made" />
      {rotate.data ? (
        <div className="callout" role="status">
          <p>
            Copy the secret now, it is not shown again. Keep it on your servers only, never in a page.
            {rotate.data.previous?.retiresAt ? ` The previous secret verifies tokens until ${when(rotate.data.previous.retiresAt)}.` : ""}
          </p>
          <code className="secret" data-testid="new-signing-secret">
            {rotate.data.secret}
          </code>
          <button type="button" className="chip" onClick={() => void navigator.clipboard?.writeText(rotate.data.secret)}>
            Copy
          </button>
        </div>
      ) : null}
    </section>
  );
}
