/**
 * What went wrong, read out by screen readers as it appears (role="alert"); nothing when all is
 * well. `about` opens the sentence ("The key could not be made") before the message itself.
 */
export function Problem({ message, about }: { message: string | null | undefined; about?: string }) {
  if (!message) return null;
  return (
    <p role="alert" className="error">
      {about ? `${about}: ${message}` : message}
    </p>
  );
}
