// The payloads of a user's saved dashboard views. One schema each, shared by the header's form
// and the procedures.
import { z } from "zod";

/** Most views one user keeps: a menu to pick from, not an archive. */
export const MAX_SAVED_VIEWS = 50;
/** Longest address kept: a view with every filter and column chosen stays far below it. */
export const MAX_VIEW_PATH_LENGTH = 2000;

const BASE = "http://dashboard.invalid";
// Control characters and backslashes have no place in a name or an address a person saved; a
// backslash is read as a slash by browsers, which would let "/dashboard\\..." leave the path.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to refuse them
const CONTROL = /[\u0000-\u001f\u007f\\]/;

/**
 * `path` as the dashboard address it names (its path and query, no fragment), or null when it is
 * not one: absolute addresses, "//host" and anything that leaves /dashboard are refused, so a
 * saved view can only ever lead back into the dashboard.
 */
export function dashboardAddress(path: string): string | null {
  if (!path.startsWith("/dashboard") || CONTROL.test(path)) return null;
  let url: URL;
  try {
    url = new URL(path, BASE);
  } catch {
    return null;
  }
  if (url.origin !== BASE || !(url.pathname === "/dashboard" || url.pathname.startsWith("/dashboard/"))) return null;
  return `${url.pathname}${url.search}`;
}

export const ZSavedViewName = z
  .string()
  .trim()
  .min(1, "is required")
  .max(80, "is at most 80 characters")
  .refine((name) => !CONTROL.test(name), "may not hold control characters or backslashes");

export const ZSaveViewInput = z.object({
  name: ZSavedViewName,
  path: z
    .string()
    .max(MAX_VIEW_PATH_LENGTH, `is at most ${MAX_VIEW_PATH_LENGTH} characters`)
    .transform((path, context) => {
      const address = dashboardAddress(path);
      if (address === null) {
        context.addIssue({ code: "custom", message: "must be an address in the dashboard" });
        return z.NEVER;
      }
      // Parsing percent-encodes what was not ("é" is "%C3%A9"): the limit holds for what is kept.
      if (address.length > MAX_VIEW_PATH_LENGTH) {
        context.addIssue({ code: "custom", message: `is at most ${MAX_VIEW_PATH_LENGTH} characters` });
        return z.NEVER;
      }
      return address;
    }),
});
export type TSaveViewInput = z.input<typeof ZSaveViewInput>;

export const ZSavedViewId = z.object({ id: z.string().min(1).max(64) });
