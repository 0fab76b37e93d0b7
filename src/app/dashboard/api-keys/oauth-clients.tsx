"use client";
// OAuth clients of the chosen account: create (id and secret shown here once), list (never a
// secret), rotate (the new secret shown once), revoke.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Problem } from "@/app/problem";
import { OAUTH_SCOPES, type OauthScope, ZCreateOauthClientInput } from "@/server/accounts/oauth-client-input";
import type { OauthClientSummary } from "@/server/accounts/oauth-clients";
import { UTC } from "@/server/core/time-zones";
import { useTRPC } from "../../trpc-client";
import { QueryTable } from "../data-table";
import { Moment, minuteOrNever, whenIn } from "../figures";
import { useMayChange } from "../may-change";
import { momentColumn, type TableColumn } from "../table-columns";

const SCOPE_WORDS: Record<OauthScope, string> = {
  "reports:read": "read the report routes",
  "reports:jobs": "run report jobs",
};

const clientColumns: TableColumn<OauthClientSummary>[] = [
  { id: "name", label: "Name", kind: "text", value: (client) => client.name },
  { id: "id", label: "Client id", kind: "text", value: (client) => client.id, cell: (client) => <code>{client.id}</code> },
  { id: "scopes", label: "Scopes", kind: "text", value: (client) => client.scopes.join(" ") },
  momentColumn("createdAt", "Created", (client) => client.createdAt, minuteOrNever),
  momentColumn("lastUsedAt", "Last token", (client) => client.lastUsedAt, minuteOrNever),
  momentColumn("secretRotatedAt", "Secret rotated", (client) => client.secretRotatedAt, minuteOrNever),
  {
    id: "status",
    label: "Status",
    kind: "text",
    // The files write moments in UTC; the screen in the viewer's zone.
    value: (client) => (client.revokedAt ? `revoked ${whenIn(client.revokedAt, UTC)}` : "live"),
    cell: (client) =>
      client.revokedAt ? (
        <>
          revoked <Moment at={client.revokedAt} write={whenIn} />
        </>
      ) : (
        "live"
      ),
  },
];

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
  const mayChange = useMayChange(accountId);
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
      {mayChange ? (
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
      ) : null}
      <Problem message={problem} />
      <Problem message={create.error?.message} about="The client could not be made" />
      <Problem message={rotate.error?.message} about="The secret could not be rotated" />
      <Problem message={revoke.error?.message} about="The client could not be revoked" />
      {shown ? <NewSecret title={create.data ? shown.name : `${shown.name} has a new secret`} clientId={shown.id} secret={shown.secret} /> : null}
      <QueryTable
        query={clients}
        what="OAuth clients"
        empty="No OAuth clients yet. Make one for a machine that speaks OAuth2."
        rowsOf={(list) => list}
        caption="OAuth clients"
        columns={clientColumns}
        rowKey={(client) => client.id}
        currency={null}
        defaultSort={{ id: "createdAt", descending: true }}
        fileName="oauth-clients"
        sheet="OAuth clients"
        urlPrefix="clients_"
        actions={
          mayChange
            ? (client) =>
                client.revokedAt ? null : (
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
                )
            : undefined
        }
      />
    </section>
  );
}
