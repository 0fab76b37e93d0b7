// The three states every screen's data passes through before it is shown, written once: loading
// (a busy line screen readers announce), failed (a <Problem> naming what could not be loaded) and
// empty (a sentence saying what would appear here and how to get it). Screens and DataTable
// render their data through <QueryState>; a hand-written busy, empty or alert paragraph elsewhere
// in src/app fails src/lint/one-set-of-parts.test.ts.
import type { ReactNode } from "react";
import { Problem } from "./problem";

/** What a query hook (TanStack Query) tells about its data; a mutation's result fits too. */
export interface QueryLike<Data> {
  data: Data | undefined;
  error: { message: string } | null;
  isPending?: boolean;
}

export interface QueryStateProps<Data> {
  query: QueryLike<Data>;
  /** What is loading, in words, plural and lower case: "campaigns" → "Loading campaigns…". */
  what: string;
  /** When the loaded data counts as empty; then `empty` is shown instead of the children. */
  isEmpty?: (data: Data) => boolean;
  /** The sentence for no data: what would appear here, and how to make it appear. */
  empty?: ReactNode;
  children: (data: Data) => ReactNode;
}

export function QueryState<Data>({ query, what, isEmpty, empty, children }: QueryStateProps<Data>) {
  if (query.error) return <Problem about={`The ${what} could not be loaded`} message={query.error.message} />;
  if (query.data === undefined) return <Busy what={what} />;
  if (isEmpty?.(query.data)) return <Empty>{empty ?? `No ${what} yet.`}</Empty>;
  return <>{children(query.data)}</>;
}

/** "Loading campaigns…", announced as busy; `doing` names other work: "Sending the order…". */
export function Busy({ what, doing = "Loading" }: { what: string; doing?: string }) {
  return (
    <p aria-busy="true" className="muted">
      {doing} {what}…
    </p>
  );
}

/** An empty state: what would appear here, and how to make it appear. */
export function Empty({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <p className="empty" data-testid={testId}>
      {children}
    </p>
  );
}
