// Loads the Tally browser SDK the way a publisher's page would, with a <script> tag, so the demo
// exercises the real bundle (/sdk/tally.js) rather than an import of its source. Client code only.
import type { TallyApi } from "@/sdk/tally";

const SDK_SRC = "/sdk/tally.js";
const SDK_TIMEOUT_MS = 10_000;

// Shared by every component of the page, so the script is added once however many ask for it.
let sdkPromise: Promise<TallyApi> | undefined;

/** Loads /sdk/tally.js once per page and resolves with window.Tally. */
export function loadTally(): Promise<TallyApi> {
  if (window.Tally) return Promise.resolve(window.Tally);
  sdkPromise ??= new Promise<TallyApi>((resolve, reject) => {
    let script = document.querySelector<HTMLScriptElement>("script[data-tally-sdk]");
    if (!script) {
      script = document.createElement("script");
      script.src = SDK_SRC;
      script.async = true;
      script.dataset.tallySdk = "";
      document.head.appendChild(script);
    }
    const fail = (reason: string) => {
      script?.remove();
      reject(new Error(reason));
    };
    const timer = window.setTimeout(() => fail("timed out"), SDK_TIMEOUT_MS);
    script.addEventListener("load", () => {
      window.clearTimeout(timer);
      if (window.Tally) resolve(window.Tally);
      else fail("the script did not define window.Tally");
    });
    script.addEventListener("error", () => {
      window.clearTimeout(timer);
      fail("the script did not load");
    });
  }).catch((error: unknown) => {
    sdkPromise = undefined; // a later page may try again
    throw error;
  });
  return sdkPromise;
}
