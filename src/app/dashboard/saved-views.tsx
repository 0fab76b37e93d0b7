"use client";
// The header's saved views: the viewer's own named dashboard addresses (range, account, filters,
// sort, columns), opened in one click, and the view on screen saved under a name (the same name
// again replaces it). Server side: src/server/views/.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { Problem } from "@/app/problem";
import { QueryState } from "@/app/query-state";
import { ZSaveViewInput } from "@/server/views/saved-view-input";
import { useTRPC } from "../trpc-client";

// Over 80 lines on purpose: the menu's list, its form and their two mutations read best together.
export function SavedViews() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const menu = useRef<HTMLDivElement>(null);
  const pathname = usePathname();
  const search = useSearchParams().toString();
  const here = `${pathname}${search ? `?${search}` : ""}`;
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const views = useQuery(trpc.views.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.views.list.queryKey() });
  const save = useMutation(
    trpc.views.save.mutationOptions({
      onSuccess: () => {
        setName("");
        void refresh();
      },
    }),
  );
  const remove = useMutation(trpc.views.remove.mutationOptions({ onSuccess: () => void refresh() }));

  // A button and a panel rather than <details>: a fixed panel inside <details> is laid out in the
  // details' box, not the window's, and would leave a phone's screen.
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  // The header stays from page to page: a menu left open would cover the next one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: closing is the point of a new address
  useEffect(() => setOpen(false), [here]);
  // A click or focus elsewhere closes it (not focus lost to nowhere, as when the Save button it
  // was on turns disabled while saving); Escape closes it and gives the focus back to its button.
  useEffect(() => {
    const elsewhere = (event: Event) => {
      if (!menu.current?.contains(event.target as Node)) setOpen(false);
    };
    const onEscape = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || !menu.current?.contains(document.activeElement)) return;
      setOpen(false);
      button.current?.focus();
    };
    document.addEventListener("pointerdown", elsewhere);
    document.addEventListener("focusin", elsewhere);
    document.addEventListener("keydown", onEscape);
    return () => {
      document.removeEventListener("pointerdown", elsewhere);
      document.removeEventListener("focusin", elsewhere);
      document.removeEventListener("keydown", onEscape);
    };
  }, []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ZSaveViewInput.safeParse({ name, path: here });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return setProblem(`${issue.path[0] === "name" ? "Name" : "This page"} ${issue.message}`);
    }
    setProblem(null);
    save.mutate(parsed.data);
  };

  return (
    <div className="saved-views" ref={menu}>
      <button ref={button} type="button" className="link-button" aria-expanded={open} aria-controls="saved-views-panel" onClick={() => setOpen(!open)}>
        Saved views
      </button>
      {open ? (
        <div className="saved-views-panel" id="saved-views-panel">
          <QueryState
            query={views}
            what="saved views"
            isEmpty={(list) => list.length === 0}
            empty="No saved views yet: save the view on screen, with its range, account, filters and sort, to come back to it."
          >
            {(list) => (
              <ul aria-label="Saved views">
                {list.map((view) => (
                  <li key={view.id}>
                    <Link href={view.path} aria-current={view.path === here ? "page" : undefined} onClick={() => setOpen(false)}>
                      {view.name}
                    </Link>
                    <button type="button" className="link-button" disabled={remove.isPending} onClick={() => remove.mutate({ id: view.id })}>
                      Remove<span className="visually-hidden"> the view {view.name}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </QueryState>
          <form noValidate onSubmit={submit} aria-label="Save this view">
            <label>
              Save this view as
              <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Acme, last 30 days" maxLength={80} aria-invalid={problem !== null} />
            </label>
            <button type="submit" className="chip" disabled={save.isPending}>
              {save.isPending ? "Saving…" : "Save view"}
            </button>
          </form>
          <Problem message={problem} />
          <Problem message={save.error?.message} about="The view could not be saved" />
          <Problem message={remove.error?.message} about="The view could not be removed" />
          {save.data && !save.isPending ? <p role="status">Saved “{save.data.name}”.</p> : null}
        </div>
      ) : null}
    </div>
  );
}
