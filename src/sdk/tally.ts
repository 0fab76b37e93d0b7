/**
 * Tally browser SDK: measures impressions, views and clicks of ads served by `POST /v1/ads`.
 *
 * Dependency-free; never imports server code. `npm run build:sdk` bundles this file into a
 * minified IIFE at `public/sdk/tally.js`, served as `/sdk/tally.js`, which sets `window.Tally`
 * (a second copy of the script on the same page keeps the first one's `window.Tally`).
 *
 * ```html
 * <script src="/sdk/tally.js"></script>
 * <script>
 *   const tracker = Tally.init({ userId: "u_123" });   // sessionId defaults to Tally.sessionId()
 *   // for each ad of the /v1/ads answer, once it is in the page:
 *   tracker.impression(ad, document.querySelector('[data-ad-id="' + ad.ad_id + '"]'));
 * </script>
 * ```
 *
 * API
 * - `Tally.sessionId(): string` — the persistent visitor id: localStorage key `tally_sid`; where
 *   localStorage throws (privacy modes), a first-party cookie `tally_sid` (max-age 400 days);
 *   where cookies are refused too, an id kept in memory for the life of the page.
 * - `Tally.init({ sessionId?, userId? }): Tracker` — a tracker for that visitor; it also becomes
 *   the default tracker behind `Tally.impression`, `Tally.track` and `Tally.click`.
 * - `tracker.impression(ad, element?): () => void` — sends the impression once per ad on this
 *   page (key: `ad.impression_url`, each served ad has its own signed addresses); with an element,
 *   also `tracker.track(ad, element)`. Returns the function that stops tracking the element.
 * - `tracker.track(ad, element): () => void` — view measurement and click tracking on the element:
 *   - view: sent once per ad when at least 50% of the element stays in the viewport for 1 s
 *     while the page is visible (IntersectionObserver); no views without IntersectionObserver;
 *   - click: sent on every click (and middle click) of the element, in the capture phase so it
 *     fires before navigation.
 *   Tracking the same ad on the same element twice is a no-op until the returned stop function
 *   is called.
 * - `tracker.click(ad): void` — sends a click by hand (for ads not rendered as one element).
 * - `Tally.impression`, `Tally.track`, `Tally.click` — the same on the default tracker (created
 *   by `Tally.init()` on first use).
 *
 * Each beacon is `POST <ad.*_url>` with the JSON body `{ "session_id": "...", "user_id": "..." }`
 * (`user_id` omitted when unknown), sent with `navigator.sendBeacon`; `fetch` with `keepalive`
 * is the fallback where sendBeacon is missing, refuses the body (queue full) or throws. No call
 * of the SDK throws into the host page.
 */

import type { ServedAd } from "../contracts/ad-query-answer";

/** An ad as returned by the ad server (`POST /v1/ads`). */
export type TallyAd = ServedAd;

export interface TallyInitOptions {
  sessionId?: string;
  userId?: string;
}

export interface TallyTracker {
  readonly sessionId: string;
  readonly userId?: string;
  impression(ad: TallyAd, element?: Element | null): () => void;
  track(ad: TallyAd, element: Element): () => void;
  click(ad: TallyAd): void;
}

export interface TallyApi {
  sessionId(): string;
  init(options?: TallyInitOptions): TallyTracker;
  impression(ad: TallyAd, element?: Element | null): () => void;
  track(ad: TallyAd, element: Element): () => void;
  click(ad: TallyAd): void;
}

declare global {
  interface Window {
    Tally?: TallyApi;
  }
}

const KEY = "tally_sid";
const VIEW_RATIO = 0.5;
const VIEW_MS = 1000;

const noop = (): void => {};

/** Beacon addresses already used on this page: impressions and views are sent once per ad. */
const sent: Record<string, 1> = {};
/** Element and ad pairs being tracked, so a second track() of the same pair adds nothing. */
const tracking = new WeakMap<Element, Record<string, 1>>();

let memoryId: string | undefined;
let defaultTracker: TallyTracker | undefined;

function randomId(): string {
  const c = typeof crypto !== "undefined" ? crypto : undefined;
  try {
    if (c && c.randomUUID) return c.randomUUID();
  } catch {
    // randomUUID needs a secure context; fall through.
  }
  let id = "";
  const bytes = new Uint8Array(16);
  try {
    c!.getRandomValues(bytes);
  } catch {
    for (let i = 0; i < 16; i++) bytes[i] = (Math.random() * 256) | 0;
  }
  for (let i = 0; i < 16; i++) id += (bytes[i]! + 256).toString(16).slice(1);
  return id;
}

/** The persistent visitor id: localStorage, else a first-party cookie, else memory. */
export function sessionId(): string {
  let id: string | null | undefined;
  try {
    id = localStorage.getItem(KEY);
    if (!id) localStorage.setItem(KEY, (id = randomId()));
    return id;
  } catch {
    // localStorage missing or refused: try a cookie.
  }
  try {
    const read = (): string | undefined => {
      const match = document.cookie.match(/(?:^|;\s*)tally_sid=([^;]+)/);
      return match ? decodeURIComponent(match[1]!) : undefined;
    };
    id = read();
    if (id) return id;
    id = memoryId || randomId();
    document.cookie =
      KEY + "=" + encodeURIComponent(id) + ";max-age=34560000;path=/;SameSite=Lax" +
      (location.protocol == "https:" ? ";Secure" : "");
    if (read() == id) return id;
  } catch {
    // no document or cookies refused: keep the id in memory.
  }
  return (memoryId = memoryId || id || randomId());
}

function post(url: string, body: string): void {
  try {
    const n = navigator;
    if (n.sendBeacon && n.sendBeacon(url, new Blob([body], { type: "application/json" }))) return;
  } catch {
    // Some browsers refuse a JSON Blob to another origin: use fetch.
  }
  try {
    fetch(url, {
      method: "POST",
      keepalive: true,
      credentials: "include",
      mode: "cors",
      headers: { "Content-Type": "application/json" },
      body,
    }).catch(noop);
  } catch {
    // No way to send: drop the beacon rather than break the page.
  }
}

/** Creates a tracker for one visitor and makes it the default tracker. */
export function init(options?: TallyInitOptions): TallyTracker {
  let sid: string | undefined;
  let uid: string | undefined;
  try {
    sid = options && options.sessionId;
    uid = options && options.userId;
  } catch {
    // a hostile options object: ignore it.
  }
  sid = sid || sessionId();
  const body = JSON.stringify(uid ? { session_id: sid, user_id: uid } : { session_id: sid });
  const once = (url: string | undefined): void => {
    if (url && !sent[url]) {
      sent[url] = 1;
      post(url, body);
    }
  };

  const click = (ad: TallyAd): void => {
    try {
      if (ad && ad.click_url) post(ad.click_url, body);
    } catch {
      // never throw into the host page
    }
  };

  const track = (ad: TallyAd, el: Element): (() => void) => {
    try {
      const key = ad && ad.impression_url;
      if (!key || !el || !el.addEventListener) return noop;
      let pairs = tracking.get(el);
      if (!pairs) tracking.set(el, (pairs = {}));
      if (pairs[key]) return noop;
      pairs[key] = 1;

      const onClick = (event: Event): void => {
        if (event.type == "click" || (event as MouseEvent).button == 1) click(ad);
      };
      el.addEventListener("click", onClick, true);
      el.addEventListener("auxclick", onClick, true);

      let observer: IntersectionObserver | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let inView = false;
      const cancel = (): void => {
        clearTimeout(timer);
        timer = undefined;
      };
      const stopViews = (): void => {
        cancel();
        if (observer) observer.disconnect();
        observer = undefined;
        document.removeEventListener("visibilitychange", update);
      };
      const update = (): void => {
        if (!inView || document.hidden) return cancel();
        timer = timer || setTimeout(() => {
          stopViews();
          once(ad.view_url);
        }, VIEW_MS);
      };
      if (typeof IntersectionObserver == "function" && ad.view_url && !sent[ad.view_url]) {
        observer = new IntersectionObserver(
          (entries) => {
            const entry = entries[entries.length - 1];
            if (entry) inView = entry.isIntersecting && entry.intersectionRatio >= VIEW_RATIO;
            update();
          },
          { threshold: [0, VIEW_RATIO, 1] },
        );
        observer.observe(el);
        document.addEventListener("visibilitychange", update);
      }

      return () => {
        try {
          stopViews();
          el.removeEventListener("click", onClick, true);
          el.removeEventListener("auxclick", onClick, true);
          delete pairs[key];
        } catch {
          // never throw into the host page
        }
      };
    } catch {
      return noop;
    }
  };

  const tracker: TallyTracker = {
    sessionId: sid,
    userId: uid,
    impression(ad, el) {
      try {
        once(ad && ad.impression_url);
      } catch {
        // never throw into the host page
      }
      return el ? track(ad, el) : noop;
    },
    track,
    click,
  };
  return (defaultTracker = tracker);
}

const current = (): TallyTracker => defaultTracker || init();

export const impression: TallyApi["impression"] = (ad, el) => current().impression(ad, el);
export const track: TallyApi["track"] = (ad, el) => current().track(ad, el);
export const click: TallyApi["click"] = (ad) => current().click(ad);

if (typeof window != "undefined" && !window.Tally) {
  window.Tally = { sessionId, init, impression, track, click };
}
