// Where the links a CLI prints start (an invitation's: `npm run users -- invite`), and why, since a
// link to the wrong address is a link nobody can open: `--base-url` when given, else
// TALLY_PUBLIC_URL (the address Tally's users reach it at), else the address a local launcher
// running beside it serves at (local/app-address.ts), else http://localhost:3000, `npm run dev`'s
// default, said to be a guess with the two ways to set it.
export const LOCAL_DEFAULT = "http://localhost:3000";

/** A --base-url that is no http(s) address: a usage error. */
export class BaseUrlError extends Error {}

export interface BaseUrl {
  url: string;
  /** Where it came from, in words, for the line the CLI prints. */
  from: string;
  /** True when nothing named it: the CLI says how to. */
  guessed: boolean;
}

const HTTP_URL = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;

/** The base address a CLI's links start with; throws on a --base-url that is not an http(s) address. */
export function cliBaseUrl(sources: { option?: string; publicUrl?: string; launcher?: string | null }): BaseUrl {
  if (sources.option !== undefined) {
    const option = sources.option.trim().replace(/\/+$/, "");
    if (!HTTP_URL.test(option))
      throw new BaseUrlError(`--base-url must be an http:// or https:// address, such as https://tally.example.com (not '${sources.option}')`);
    return { url: option, from: "--base-url", guessed: false };
  }
  if (sources.publicUrl) return { url: sources.publicUrl, from: "TALLY_PUBLIC_URL", guessed: false };
  if (sources.launcher) return { url: sources.launcher, from: "the local launcher running beside this command (npm run dev)", guessed: false };
  return { url: LOCAL_DEFAULT, from: "npm run dev's default address", guessed: true };
}

/** The line a CLI prints before a link: where its address came from, and, when guessed, how to name it. */
export function baseUrlNote(base: BaseUrl): string {
  const note = `links start with ${base.url} (from ${base.from})`;
  return base.guessed ? `${note}; if Tally runs elsewhere, pass --base-url <address> or set TALLY_PUBLIC_URL` : note;
}
