"use client";
// Report API keys: create (the key is shown here once), list (a prefix only), revoke; then the
// same account's OAuth clients (oauth-clients.tsx).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { Empty } from "@/app/query-state";
import { ZCreateApiKeyInput } from "@/server/accounts/api-key-input";
import type { ApiKeySummary } from "@/server/accounts/api-keys";
import { UTC } from "@/server/core/time-zones";
import { useTRPC } from "../../trpc-client";
import { AccountPicker, useOneAccount } from "../account-picker";
import { QueryTable } from "../data-table";
import { Moment, minuteOrNever, whenIn } from "../figures";
import { ReadOnlyNote, useMayChange } from "../may-change";
import { momentColumn, type TableColumn } from "../table-columns";
import { OauthClients } from "./oauth-clients";

const keyColumns: TableColumn<ApiKeySummary>[] = [
  { id: "name", label: "Name", kind: "text", value: (key) => key.name },
  { id: "prefix", label: "Key", kind: "text", value: (key) => `${key.prefix}…`, cell: (key) => <code>{key.prefix}…</code> },
  momentColumn("createdAt", "Created", (key) => key.createdAt, minuteOrNever),
  momentColumn("lastUsedAt", "Last used", (key) => key.lastUsedAt, minuteOrNever),
  {
    id: "status",
    label: "Status",
    kind: "text",
    // The files write moments in UTC; the screen in the viewer's zone.
    value: (key) => (key.revokedAt ? `revoked ${whenIn(key.revokedAt, UTC)}` : "live"),
    cell: (key) =>
      key.revokedAt ? (
        <>
          revoked <Moment at={key.revokedAt} write={whenIn} />
        </>
      ) : (
        "live"
      ),
  },
];

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function ApiKeys() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [accountId, setAccountId, noAccount] = useOneAccount();
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const mayChange = useMayChange(accountId);
  const keys = useQuery({ ...trpc.apiKeys.list.queryOptions({ accountId }), enabled: accountId !== "" });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey({ accountId }) });
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: () => {
        setName("");
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions({ onSuccess: () => void refresh() }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZCreateApiKeyInput.safeParse({ accountId, name });
    if (!parsed.success) return setProblem(`Name ${parsed.error.issues[0]!.message}`);
    setProblem(null);
    create.mutate(parsed.data);
  };

  return (
    <>
      <h1>API keys</h1>
      <p className="muted">
        Keys let an account call the report routes (<code>Authorization: Bearer &lt;key&gt;</code>). A key is shown once, when it is made; Tally keeps only its
        hash.
      </p>
      <div className="toolbar">
        <AccountPicker value={accountId} onChange={setAccountId} />
      </div>
      {mayChange ? (
        <form className="toolbar" noValidate onSubmit={submit} aria-label="New API key">
          <label>
            Name
            <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Looker export" aria-invalid={problem !== null} />
          </label>
          <button type="submit" className="button" disabled={create.isPending || accountId === ""}>
            {create.isPending ? "Creating…" : "Create key"}
          </button>
        </form>
      ) : mayChange === false ? (
        <ReadOnlyNote what="this account's keys" />
      ) : null}
      <Problem message={problem} />
      <Problem message={create.error?.message} about="The key could not be made" />
      <Problem message={revoke.error?.message} about="The key could not be revoked" />
      {create.data ? (
        <div className="callout" role="status">
          <p>
            <strong>{create.data.name}</strong>: copy the key now, it is not shown again.
          </p>
          <code className="secret" data-testid="new-key">
            {create.data.key}
          </code>
          <button type="button" className="chip" onClick={() => void navigator.clipboard?.writeText(create.data.key)}>
            Copy
          </button>
        </div>
      ) : null}
      {noAccount ? (
        <Empty>No accounts yet: keys belong to an account, so make one on the Accounts page first.</Empty>
      ) : (
        <QueryTable
          query={keys}
          what="keys"
          empty="No keys yet. Make one to call the report routes."
          rowsOf={(list) => list}
          caption="API keys"
          columns={keyColumns}
          rowKey={(key) => key.id}
          currency={null}
          defaultSort={{ id: "createdAt", descending: true }}
          fileName="api-keys"
          sheet="API keys"
          urlPrefix="keys_"
          actions={
            mayChange
              ? (key) =>
                  key.revokedAt ? null : (
                    <button
                      type="button"
                      className="link-button"
                      disabled={revoke.isPending}
                      onClick={() => window.confirm(`Revoke ${key.name}? Calls with it will get 401.`) && revoke.mutate({ accountId, keyId: key.id })}
                    >
                      Revoke<span className="visually-hidden"> {key.name}</span>
                    </button>
                  )
              : undefined
          }
        />
      )}
      {noAccount ? null : <OauthClients accountId={accountId} />}
    </>
  );
}
