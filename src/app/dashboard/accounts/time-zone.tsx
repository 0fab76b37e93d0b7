"use client";
// An account's time zone on its page: the zone its reports, daily budgets and daily export count
// days in, with its offset now, and for staff and the account's admins a searchable choice of
// zones (an input with the server's list, so a typed name works too) and Save. Viewers read it.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { FieldProblem, Problem } from "@/app/problem";
import { ZTimeZoneInput } from "@/server/accounts/account-input";
import { useTRPC } from "../../trpc-client";
import { useMayChange } from "../may-change";
import { savedZoneInWords, zoneWithOffset } from "./time-zone-words";

export function AccountTimeZone({ account }: { account: { id: string; timeZone: string } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mayChange = useMayChange(account.id);
  const choices = useQuery({ ...trpc.accounts.timeZones.queryOptions(), enabled: mayChange === true, staleTime: Number.POSITIVE_INFINITY });
  const [typed, setTyped] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation(
    trpc.accounts.setTimeZone.mutationOptions({
      onSuccess: () => {
        setTyped(null);
        void queryClient.invalidateQueries({ queryKey: trpc.accounts.pathKey() });
      },
    }),
  );
  const refused = save.error?.data?.fieldErrors?.timeZone;
  const fieldProblem = problem ?? refused;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZTimeZoneInput.safeParse({ accountId: account.id, timeZone: typed ?? account.timeZone });
    if (!parsed.success) return setProblem(parsed.error.issues[0]?.message ?? "is not a time zone");
    setProblem(null);
    save.mutate(parsed.data);
  };

  return (
    <section aria-label="Time zone">
      <h3>Time zone</h3>
      <p>
        <strong data-testid="account-time-zone">{zoneWithOffset(account.timeZone)}</strong>
        <span className="muted"> — reports, daily budgets and the daily export count this account&apos;s days in it.</span>
      </p>
      {mayChange ? (
        <form className="toolbar" noValidate onSubmit={submit} aria-label="Change the time zone">
          <div className="field">
            <label>
              Time zone (type to search, such as Sao_Paulo)
              <input
                list="time-zone-choices"
                autoComplete="off"
                spellCheck={false}
                value={typed ?? account.timeZone}
                onChange={(e) => {
                  setTyped(e.target.value);
                  setProblem(null);
                }}
                aria-invalid={fieldProblem ? true : undefined}
                aria-describedby={fieldProblem ? "time-zone-error" : undefined}
              />
            </label>
            <datalist id="time-zone-choices">
              {choices.data?.map((choice) => (
                <option key={choice.zone} value={choice.zone} label={`${choice.zone}, ${choice.offset}`} />
              ))}
            </datalist>
            <FieldProblem id="time-zone-error" label="Time zone" message={fieldProblem} announce={!problem && refused !== undefined} />
          </div>
          <button type="submit" className="button" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save time zone"}
          </button>
        </form>
      ) : null}
      <Problem message={refused ? null : save.error?.message} about="The time zone could not be saved" />
      <Problem message={choices.error?.message} about="The list of time zones could not be loaded" />
      {save.data && typed === null ? (
        <p role="status" className="muted" data-testid="time-zone-saved">
          {savedZoneInWords(save.data)}
        </p>
      ) : null}
    </section>
  );
}
