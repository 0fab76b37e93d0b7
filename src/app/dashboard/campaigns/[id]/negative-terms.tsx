"use client";
// A campaign's negative terms on its page: the search terms it is not served for, exact or as a
// phrase, listed to whoever may see its advertiser; its admins and staff add and remove them here.
// Nothing shows for a publisher's user, who reads the campaign's figures but not its settings.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { useTRPC } from "../../../trpc-client";
import { QueryTable } from "../../data-table";
import { minuteOrBlank } from "../../figures";
import { ReadOnlyNote, useMayChange } from "../../may-change";
import { momentColumn, type TableColumn } from "../../table-columns";

interface NegativeTerm {
  term: string;
  match: "exact" | "phrase";
  createdAt: Date;
  createdBy: string;
}

const MATCH_IN_WORDS = { exact: "exact: the whole search term", phrase: "phrase: these words together, in order" } as const;

const columns: TableColumn<NegativeTerm>[] = [
  { id: "term", label: "Term", kind: "text", value: (n) => n.term },
  { id: "match", label: "Match", kind: "text", value: (n) => n.match },
  momentColumn("createdAt", "Added", (n) => n.createdAt, minuteOrBlank),
  { id: "createdBy", label: "By", kind: "text", value: (n) => n.createdBy },
];

/** The form that adds one: the term, and how it matches. */
function AddNegativeTerm({ campaignId, onAdded }: { campaignId: string; onAdded: () => void }) {
  const trpc = useTRPC();
  const [form, setForm] = useState<{ term: string; match: "exact" | "phrase" }>({ term: "", match: "phrase" });
  const add = useMutation(
    trpc.negativeTerms.add.mutationOptions({
      onSuccess: () => {
        setForm({ ...form, term: "" });
        onAdded();
      },
    }),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (form.term.trim() !== "") add.mutate({ campaignId, ...form });
  };
  return (
    <>
      <form className="toolbar" aria-label="Add a negative term" onSubmit={submit}>
        <label>
          Term
          <input value={form.term} maxLength={200} required onChange={(e) => setForm({ ...form, term: e.target.value })} />
        </label>
        <label>
          Match
          <select value={form.match} onChange={(e) => setForm({ ...form, match: e.target.value === "exact" ? "exact" : "phrase" })}>
            <option value="phrase">{MATCH_IN_WORDS.phrase}</option>
            <option value="exact">{MATCH_IN_WORDS.exact}</option>
          </select>
        </label>
        <button type="submit" className="button" disabled={add.isPending}>
          Add negative term
        </button>
      </form>
      <Problem about="The negative term was not added" message={add.error?.message} />
    </>
  );
}

export function NegativeTerms({ campaignId, advertiserId }: { campaignId: string; advertiserId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mayChange = useMayChange(advertiserId);
  const terms = useQuery(trpc.negativeTerms.list.queryOptions({ campaignId }));
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.negativeTerms.pathKey() });
    // The campaign's activity list shows the change.
    void queryClient.invalidateQueries({ queryKey: trpc.activity.pathKey() });
  };
  const remove = useMutation(trpc.negativeTerms.remove.mutationOptions({ onSuccess: refresh }));
  if (terms.error?.data?.code === "NOT_FOUND") return null;
  return (
    <section className="panel" aria-labelledby="negative-terms-heading">
      <h2 id="negative-terms-heading">Negative terms</h2>
      <p className="muted">
        Search terms this campaign is not served for, from the next ad query on. Exact blocks the whole search term; phrase blocks any search term holding these
        words together and in order. Accents, case and spacing do not matter.
      </p>
      {mayChange ? (
        <AddNegativeTerm campaignId={campaignId} onAdded={refresh} />
      ) : mayChange === false ? (
        <ReadOnlyNote what="this campaign's negative terms" />
      ) : null}
      <Problem about="The negative term was not removed" message={remove.error?.message} />
      <QueryTable
        query={terms}
        what="negative terms"
        empty="No negative terms: this campaign may be served for any search term."
        rowsOf={(data) => data}
        caption="Negative terms of this campaign"
        columns={columns}
        rowKey={(n) => `${n.match} ${n.term}`}
        currency={null}
        defaultSort={{ id: "createdAt", descending: true }}
        fileName="negative-terms"
        sheet="Negative terms"
        urlPrefix="negatives_"
        actions={
          mayChange
            ? (n) => (
                <button
                  type="button"
                  className="link-button"
                  disabled={remove.isPending}
                  onClick={() => remove.mutate({ campaignId, term: n.term, match: n.match })}
                >
                  Remove<span className="visually-hidden"> {`${n.match} negative term ${n.term}`}</span>
                </button>
              )
            : undefined
        }
      />
    </section>
  );
}
