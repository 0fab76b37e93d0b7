"use client";
// Export destinations of an account: add and edit them (secrets never shown), test the
// connection, deliver now, and read the run history.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { DestinationInput } from "@/server/export/destination-input";
import { useTRPC } from "../../trpc-client";
import { AccountPicker, useChosenAccount } from "../account-picker";
import { DestinationForm, EMPTY_DESTINATION, type DestinationFormValue } from "./destination-form";

type View = { id: string; name: string; bucket: string; region: string; endpoint: string | null; forcePathStyle: boolean; prefix: string; types: string[]; writeSuccessMarker: boolean; status: string; statusReason: string | null;
  credentials: { kind: "access_key"; accessKeyId: string; secretAccessKey: string } | { kind: "assume_role"; roleArn: string; externalId: string } };

const formOf = (d: View): DestinationFormValue => ({
  name: d.name, bucket: d.bucket, region: d.region, endpoint: d.endpoint ?? "", forcePathStyle: d.forcePathStyle, prefix: d.prefix, types: d.types, writeSuccessMarker: d.writeSuccessMarker,
  kind: d.credentials.kind,
  accessKeyId: d.credentials.kind === "access_key" ? d.credentials.accessKeyId : "",
  secretAccessKey: d.credentials.kind === "access_key" ? d.credentials.secretAccessKey : "",
  roleArn: d.credentials.kind === "assume_role" ? d.credentials.roleArn : "",
  externalId: d.credentials.kind === "assume_role" ? d.credentials.externalId : "",
});
const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1_048_576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1_048_576).toFixed(1)} MB`);
const time = (value: string | Date | null) => (value ? new Date(value).toISOString().slice(0, 16).replace("T", " ") : "");

export function Exports() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [accountId, setAccountId] = useChosenAccount();
  const [editing, setEditing] = useState<string | "new" | null>(null);
  const destinations = useQuery({ ...trpc.exportDestinations.list.queryOptions({ accountId }), enabled: accountId !== "" });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.exportDestinations.pathKey() });
  const create = useMutation(trpc.exportDestinations.create.mutationOptions({ onSuccess: () => { setEditing(null); void refresh(); } }));
  const update = useMutation(trpc.exportDestinations.update.mutationOptions({ onSuccess: () => { setEditing(null); void refresh(); } }));

  const list = (destinations.data ?? []) as View[];
  return (
    <>
      <h1>Exports</h1>
      <p className="muted">Raw events as Snappy Parquet (hourly) and daily aggregates as CSV (after 03:00 UTC), delivered to the account&apos;s own S3 bucket. See <a href="/docs/export">what a data team receives</a>.</p>
      <div className="toolbar">
        <AccountPicker value={accountId} onChange={(id) => { setAccountId(id); setEditing(null); }} />
        {editing === null ? <button type="button" className="button" onClick={() => setEditing("new")} disabled={accountId === ""}>Add a destination</button> : null}
      </div>
      {editing === "new" ? (
        <DestinationForm accountId={accountId} initial={EMPTY_DESTINATION} submitLabel="Add destination" pending={create.isPending} serverError={create.error?.message ?? null}
          onSubmit={(input: DestinationInput) => create.mutate(input as never)} onCancel={() => setEditing(null)} />
      ) : null}
      {destinations.error ? (
        <p role="alert" className="error">The destinations could not be loaded: {destinations.error.message}</p>
      ) : destinations.isPending && accountId !== "" ? (
        <p aria-busy="true" className="muted">Loading destinations…</p>
      ) : list.length === 0 && editing !== "new" ? (
        <p className="empty">No export destinations yet. Add the bucket where this account&apos;s data team wants its files.</p>
      ) : (
        list.map((d) =>
          editing === d.id ? (
            <DestinationForm key={d.id} accountId={accountId} initial={formOf(d)} submitLabel="Save changes" pending={update.isPending} serverError={update.error?.message ?? null}
              onSubmit={(input: DestinationInput) => update.mutate({ id: d.id, destination: input as never })} onCancel={() => setEditing(null)} />
          ) : (
            <Destination key={d.id} destination={d} onEdit={() => setEditing(d.id)} />
          ),
        )
      )}
    </>
  );
}

function Destination({ destination: d, onEdit }: { destination: View; onEdit: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [showRuns, setShowRuns] = useState(false);
  const test = useMutation(trpc.exportDestinations.testConnection.mutationOptions());
  const runNow = useMutation(trpc.exportDestinations.runNow.mutationOptions({ onSuccess: () => { setShowRuns(true); void queryClient.invalidateQueries({ queryKey: trpc.exportDestinations.pathKey() }); } }));
  const runs = useQuery({ ...trpc.exportDestinations.runs.queryOptions({ id: d.id, limit: 50 }), enabled: showRuns });

  return (
    <section className="panel" aria-label={`Destination ${d.name}`}>
      <h2>{d.name} <span className={`badge ${d.status}`}>{d.status.replace("_", " ")}</span></h2>
      {d.statusReason ? <p role="status" className="error">{d.statusReason}</p> : null}
      <p>
        <code>s3://{d.bucket}/{d.prefix}</code> · {d.region}{d.endpoint ? ` · ${d.endpoint}` : ""} · {d.credentials.kind === "access_key" ? `key ${d.credentials.accessKeyId}, secret ${d.credentials.secretAccessKey}` : `role ${d.credentials.roleArn}`}
      </p>
      <p className="muted">{d.types.join(", ")}{d.writeSuccessMarker ? " · _SUCCESS after each batch" : ""}</p>
      <div className="row-buttons">
        <button type="button" className="chip" onClick={() => test.mutate({ id: d.id })} disabled={test.isPending}>{test.isPending ? "Testing…" : "Test connection"}</button>
        <button type="button" className="chip" onClick={() => runNow.mutate({ id: d.id })} disabled={runNow.isPending}>{runNow.isPending ? "Delivering…" : "Run now"}</button>
        <button type="button" className="chip" onClick={() => setShowRuns(!showRuns)} aria-expanded={showRuns}>Run history</button>
        <button type="button" className="chip" onClick={onEdit}>Edit</button>
      </div>
      {test.data ? (
        <p role="status" className={test.data.ok ? "ok" : "error"}>{test.data.ok ? "Connection works: Tally wrote and deleted a test object." : `Connection failed: ${test.data.error}`}</p>
      ) : null}
      {test.error ? <p role="alert" className="error">{test.error.message}</p> : null}
      {runNow.data ? (
        <p role="status">{runNow.data.runs.length === 0 ? "Nothing to deliver now: everything due has been delivered." : `Delivered ${runNow.data.runs.filter((r) => r.status === "succeeded").length} of ${runNow.data.runs.length} batches.`}</p>
      ) : null}
      {runNow.error ? <p role="alert" className="error">{runNow.error.message}</p> : null}
      {showRuns ? (
        runs.error ? <p role="alert" className="error">{runs.error.message}</p> : runs.isPending ? <p aria-busy="true" className="muted">Loading runs…</p> : runs.data.length === 0 ? (
          <p className="empty">No runs yet.</p>
        ) : (
          <div className="table-scroll">
            <table className="data">
              <caption className="visually-hidden">Run history of {d.name}</caption>
              <thead><tr><th scope="col">Started (UTC)</th><th scope="col">Type</th><th scope="col">Range</th><th scope="col">Status</th><th scope="col">Rows</th><th scope="col">Files</th><th scope="col">Size</th><th scope="col">Error</th></tr></thead>
              <tbody>
                {runs.data.map((r) => (
                  <tr key={r.id}>
                    <td>{time(r.startedAt)}</td><td>{r.type}{r.backfill ? " (backfill)" : ""}</td><td>{time(r.rangeStart)} → {time(r.rangeEnd)}</td>
                    <td><span className={`badge ${r.status}`}>{r.status}</span>{r.attempt > 1 ? ` (attempt ${r.attempt})` : ""}</td>
                    <td>{r.rows.toLocaleString("en")}</td><td>{r.files}</td><td>{size(r.bytes)}</td><td>{r.error ?? ""}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
    </section>
  );
}
