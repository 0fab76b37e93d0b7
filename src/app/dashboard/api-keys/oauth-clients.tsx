"use client";
// OAuth clients of the chosen account: create (id and secret shown here once), list (never a
// secret), rotate (the new secret shown once), revoke.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { OAUTH_SCOPES, type OauthScope, ZCreateOauthClientInput } from "@/server/accounts/oauth-client-input";
import { useTRPC } from "../../trpc-client";
import { whenUtc } from "../figures";

const SCOPE_WORDS: Record<OauthScope, string> = {
  "reports:read": "read the report routes",
  "reports:jobs": "run report jobs",
};

/** A secret in clear, the one time it is shown. */
function NewSecret({ title, clientId, secret }: { title: string; clientId: string; secret: string }) {
  return (
    <div className="callout" role="status">
      <p>
        <strong>{title}</strong>: copy the secret now, it is not shown again.
      </p>
      <p>
        Client id <code data-testid="new-client-id">{clientId}</code>
      </p>
      <code className="secret" data-testid="new-client-secret">
        {secret}
      </code>
      <button type="button" className="chip" onClick={() => void navigator.clipboard?.writeText(secret)}>
        Copy
      </button>
    </div>
  );
}

// Over 80 lines on purpose: one section, its queries, state and markup in the order the page shows them.
export function OauthClients({ accountId }: { accountId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<OauthScope[]>(["reports:read"]);
  const [problem, setProblem] = useState<string | null>(null);
  const clients = useQuery({ ...trpc.oauthClients.list.queryOptions({ accountId }), enabled: accountId !== "" });
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.oauthClients.list.queryKey({ accountId }) });
  const create = useMutation(
    trpc.oauthClients.create.mutationOptions({
      onSuccess: () => {
        setName("");
        rotate.reset();
        void refresh();
      },
    }),
  );
  const rotate = useMutation(
    trpc.oauthClients.rotate.mutationOptions({
      onSuccess: () => {
        create.reset();
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.oauthClients.revoke.mutationOptions({ onSuccess: () => void refresh() }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZCreateOauthClientInput.safeParse({ accountId, name, scopes });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return setProblem(`${issue.path[0] === "scopes" ? "Scopes" : "Client name"} ${issue.message}`);
    }
    setProblem(null);
    create.mutate(parsed.data);
  };
  const shown = create.data ?? rotate.data;

  return (
    <section aria-labelledby="oauth-clients-heading">
      <h2 id="oauth-clients-heading">OAuth clients</h2>
      <p className="muted">
        A client trades its id and secret for an access token of an hour (<code>POST /oauth/token</code>, client credentials), then calls the report routes with{" "}
        <code>Authorization: Bearer &lt;token&gt;</code>. Rotating a secret or revoking a client stops its tokens at once.
      </p>
      <form className="toolbar" noValidate onSubmit={submit} aria-label="New OAuth client">
        <label>
          Client name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Bid tool" aria-invalid={problem !== null} />
        </label>
        <fieldset>
          <legend>Scopes</legend>
          {OAUTH_SCOPES.map((scope) => (
            <label key={scope} className="check">
              <input
                type="checkbox"
                checked={scopes.includes(scope)}
                onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
              />{" "}
              <code>{scope}</code> ({SCOPE_WORDS[scope]})
            </label>
          ))}
        </fieldset>
        <button type="submit" className="button" disabled={create.isPending || accountId === ""}>
          {create.isPending ? "Creating…" : "Create client"}
        </button>
      </form>
      <Problem message={problem} />
      <Problem message={create.error?.message} about="The client could not be made" />
      <Problem message={rotate.error?.message} about="The secret could not be rotated" />
      <Problem message={revoke.error?.message} about="The client could not be revoked" />
      {shown ? <NewSecret title={create.data ? shown.name : `${shown.name} has a new secret`} clientId={shown.id} secret={shown.secret} /> : null}
      {clients.error ? (
        <p role="alert" className="error">
          The OAuth clients could not be loaded: {clients.error.message}
        </p>
      ) : clients.isPending && accountId !== "" ? (
        <p aria-busy="true" className="muted">
          Loading OAuth clients…
        </p>
      ) : (clients.data ?? []).length === 0 ? (
        <p className="empty">No OAuth clients yet. Make one for a machine that speaks OAuth2.</p>
      ) : (
        <div className="table-scroll">
          <table className="data">
            <caption className="visually-hidden">OAuth clients</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Client id</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last token</th>
                <th scope="col">Secret rotated</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {clients.data!.map((client) => (
                <tr key={client.id}>
                  <td>{client.name}</td>
                  <td>
                    <code>{client.id}</code>
                  </td>
                  <td>{client.scopes.join(" ")}</td>
                  <td>{whenUtc(client.createdAt)}</td>
                  <td>{whenUtc(client.lastUsedAt)}</td>
                  <td>{whenUtc(client.secretRotatedAt)}</td>
                  <td>{client.revokedAt ? `revoked ${whenUtc(client.revokedAt)}` : "live"}</td>
                  <td>
                    {client.revokedAt ? null : (
                      <>
                        <button
                          type="button"
                          className="link-button"
                          disabled={rotate.isPending}
                          onClick={() =>
                            window.confirm(`Rotate the secret of ${client.name}? The old secret and its tokens stop at once.`) &&
                            rotate.mutate({ accountId, clientId: client.id })
                          }
                        >
                          Rotate secret<span className="visually-hidden"> of {client.name}</span>
                        </button>{" "}
                        <button
                          type="button"
                          className="link-button"
                          disabled={revoke.isPending}
                          onClick={() =>
                            window.confirm(`Revoke ${client.name}? It gets no more tokens, and its tokens get 401.`) &&
                            revoke.mutate({ accountId, clientId: client.id })
                          }
                        >
                          Revoke<span className="visually-hidden"> client {client.name}</span>
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
