/**
 * What went wrong, read out by screen readers as it appears (role="alert"); nothing when all is
 * well. `about` opens the sentence ("The key could not be made") before the message itself. Every
 * alert in src/app is this part (src/lint/one-set-of-parts.test.ts).
 */
export function Problem({ message, about, testId }: { message: string | null | undefined; about?: string; testId?: string }) {
  if (!message) return null;
  return (
    <p role="alert" className="error" data-testid={testId}>
      {about ? `${about}: ${message}` : message}
    </p>
  );
}

/**
 * One field's problem, beside the field (`id` for its aria-describedby), led by the field's label.
 * Announced (`announce`) when it arrives after a submit, from the server's `data.fieldErrors`;
 * the form's own checks show at once, where the person is looking.
 */
export function FieldProblem({ id, label, message, announce }: { id: string; label: string; message: string | null | undefined; announce?: boolean }) {
  if (!message) return null;
  return (
    <span id={id} className="error" role={announce ? "alert" : undefined}>
      {label} {message}
    </span>
  );
}
