"use client";
// Report API keys: create (the key is shown here once), list (a prefix only), revoke; then the
// same account's OAuth clients (oauth-clients.tsx).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { ZCreateApiKeyInput } from "@/server/accounts/api-key-input";
import { useTRPC } from "../../trpc-client";
import { AccountPicker, useChosenAccount } from "../account-picker";
import { whenUtc } from "../figures";
import { OauthClients } from "./oauth-clients";

// Over 80 lines on purpose: one screen, its queries, state and markup in the order the page shows them.
export function ApiKeys() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [accountId, setAccountId] = useChosenAccount();
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
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
      <form className="toolbar" noValidate onSubmit={submit} aria-label="New API key">
        <label>
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Looker export" aria-invalid={problem !== null} />
        </label>
        <button type="submit" className="button" disabled={create.isPending || accountId === ""}>
          {create.isPending ? "Creating…" : "Create key"}
        </button>
      </form>
      <Problem message={problem} />
      <Problem message={create.error?.message} about="The key could not be made" />
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
      {keys.error ? (
        <p role="alert" className="error">
          The keys could not be loaded: {keys.error.message}
        </p>
      ) : keys.isPending && accountId !== "" ? (
        <p aria-busy="true" className="muted">
          Loading keys…
        </p>
      ) : (keys.data ?? []).length === 0 ? (
        <p className="empty">No keys yet. Make one to call the report routes.</p>
      ) : (
        <div className="table-scroll">
          <table className="data">
            <caption className="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data!.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{whenUtc(key.createdAt)}</td>
                  <td>{whenUtc(key.lastUsedAt)}</td>
                  <td>{key.revokedAt ? `revoked ${whenUtc(key.revokedAt)}` : "live"}</td>
                  <td>
                    {key.revokedAt ? null : (
                      <button
                        type="button"
                        className="link-button"
                        disabled={revoke.isPending}
                        onClick={() => window.confirm(`Revoke ${key.name}? Calls with it will get 401.`) && revoke.mutate({ accountId, keyId: key.id })}
                      >
                        Revoke<span className="visually-hidden"> {key.name}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <OauthClients accountId={accountId} />
    </>
  );
}
