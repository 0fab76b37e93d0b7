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
