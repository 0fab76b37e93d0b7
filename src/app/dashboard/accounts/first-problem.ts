// The first of a form's problems, named by the field's label: what the dashboard's forms show
// beside themselves when the server's schema (shared with the browser) refuses their input.
export const firstProblem = (issues: { path: PropertyKey[]; message: string }[], labels: Record<string, string>) => {
  const issue = issues[0]!;
  const key = String(issue.path.at(-1) ?? "");
  return `${labels[key] ?? key} ${issue.message}`;
};
