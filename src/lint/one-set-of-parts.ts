// What a screen writes by hand that one of the console's shared parts already says: a busy line, an
// empty paragraph or an alert (src/app/query-state.tsx, src/app/problem.tsx), or an `as never` cast
// that hides a type the tRPC router would infer.

/** The parts themselves, where these patterns are written once. */
export const SHARED_PARTS = ["src/app/query-state.tsx", "src/app/problem.tsx"];

const PATTERNS: [RegExp, string][] = [
  [/aria-busy=/, "a busy line (use <QueryState> or <Busy>)"],
  [/className="empty"/, "an empty paragraph (use <QueryState> or <Empty>)"],
  [/role="alert"/, "an alert (use <Problem>)"],
  [/className="error"/, "an alert (use <Problem>)"],
  [/\bas never\b/, "an `as never` cast (let tRPC infer the type)"],
];

export interface HandWritten {
  file: string;
  line: number;
  what: string;
}

/** Each line of `source` that writes by hand what a shared part says. */
export function handWrittenParts(file: string, source: string): HandWritten[] {
  if (SHARED_PARTS.includes(file)) return [];
  return source.split("\n").flatMap((text, index) => PATTERNS.filter(([pattern]) => pattern.test(text)).map(([, what]) => ({ file, line: index + 1, what })));
}
