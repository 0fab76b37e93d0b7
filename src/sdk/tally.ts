// One file over 300 lines on purpose: it is bundled into one small script (public/sdk/tally.js), and its parts share one closure.
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
 * - `tracker.conversion(order, options?)` — sends a completed order (docs/interface.md §2.3) to
 *   `<eventsUrl>/v1/beacon/conversion`, with the tracker's `session_id` and `user_id` where the
 *   order has none. As a beacon by default (no reply, survives leaving the page); with
 *   `{ waitForReply: true }` by `fetch` with `Accept: application/json`, returning a promise of
 *   `{ status, body }` (202 `{ messages }`, 422 Ajv's error array, other codes `{ error }`; `body`
 *   is null when the reply is not JSON); it rejects only when the order cannot be turned into
 *   JSON or the service cannot be reached. To have the order verified, put in it the
 *   `order_token` your server signed for it (HMAC-SHA256 of the order id and total under the
 *   publisher's signing secret, docs/conversions.md): the SDK sends it as it is, and the secret
 *   itself never reaches the page.
 * - `Tally.impression`, `Tally.track`, `Tally.click`, `Tally.conversion` — the same on the default
 *   tracker (created by `Tally.init()` on first use).
 * - `Tally.hashIdentity({ email?, phone?, taxId?, firstName?, lastName? }, { countryCode? })` —
 *   normalises and hashes the identity fields of an order into `email_hashed`, `phone_hashed`,
 *   `social_id_hashed`, `first_name_hashed`, `last_name_hashed`, leaving out the empty ones
 *   (rules and test vectors: docs/conversions.md); `Tally.sha256Hex(text)` is the hash alone.
 *   Both return promises and need Web Crypto, which browsers give secure contexts (https) only.
 *
 * `init({ eventsUrl })` sets where conversions go; by default the origin this script was loaded
 * from, else the page's origin. Ad beacons need no such setting: each ad carries its addresses.
 *
 * Each beacon is `POST <ad.*_url>` with the JSON body `{ "session_id": "...", "user_id": "..." }`
 * (`user_id` omitted when unknown), sent with `navigator.sendBeacon`; `fetch` with `keepalive`
 * is the fallback where sendBeacon is missing, refuses the body (queue full) or throws. No call
 * of the SDK throws into the host page; only the promises described above can reject.
 */

import type { ServedAd } from "../contracts/ad-query-answer";
import type { ConversionBody, ConversionItemBody } from "../contracts/conversion.schema";
import { hashIdentity, sha256Hex } from "./identity-hashing";

export type { HashedIdentity, IdentityFields, PhoneOptions } from "./identity-hashing";
export { hashIdentity, sha256Hex };

/** An ad as returned by the ad server (`POST /v1/ads`). */
export type TallyAd = ServedAd;

export interface TallyInitOptions {
  sessionId?: string;
  userId?: string;
  /** Origin (or base address) of the Tally events service that receives conversions. */
  eventsUrl?: string;
}

/** A conversion (docs/interface.md §2.3, schema in src/contracts/); `session_id` and `user_id` default to the tracker's. */
export type TallyOrder = Omit<ConversionBody, "session_id" | "user_id"> & Partial<Pick<ConversionBody, "session_id" | "user_id">>;
/** An order line (docs/interface.md §2.4); prices are per unit. */
export type TallyOrderItem = ConversionItemBody;

export interface TallyConversionOptions {
  /** Send with fetch and resolve with the service's answer instead of a beacon without one. */
  waitForReply?: boolean;
}

export interface TallyConversionReply {
  status: number;
  /** The JSON of the reply, or null when it is not JSON. */
  body: unknown;
}

export interface TallyConversion {
  (order: TallyOrder, options: TallyConversionOptions & { waitForReply: true }): Promise<TallyConversionReply>;
  (order: TallyOrder, options?: TallyConversionOptions & { waitForReply?: false }): void;
  (order: TallyOrder, options?: TallyConversionOptions): Promise<TallyConversionReply> | undefined;
}

export interface TallyTracker {
  readonly sessionId: string;
  readonly userId?: string;
  impression(ad: TallyAd, element?: Element | null): () => void;
  track(ad: TallyAd, element: Element): () => void;
  click(ad: TallyAd): void;
  conversion: TallyConversion;
}

export interface TallyApi {
  sessionId(): string;
  init(options?: TallyInitOptions): TallyTracker;
  impression(ad: TallyAd, element?: Element | null): () => void;
  track(ad: TallyAd, element: Element): () => void;
  click(ad: TallyAd): void;
  conversion: TallyConversion;
  hashIdentity: typeof hashIdentity;
  sha256Hex: typeof sha256Hex;
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

/** The origin this script came from: document.currentScript is only set while it first runs. */
let scriptOrigin: string | undefined;
try {
  scriptOrigin = new URL((document.currentScript as HTMLScriptElement).src).origin;
} catch {
  // inline, module or bundled copy: conversions default to the page's origin.
}

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
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Safari and Firefox; the id must survive where localStorage is cleared.
    document.cookie = KEY + "=" + encodeURIComponent(id) + ";max-age=34560000;path=/;SameSite=Lax" + (location.protocol == "https:" ? ";Secure" : "");
    if (read() == id) return id;
  } catch {
    // no document or cookies refused: keep the id in memory.
  }
  return (memoryId = memoryId || id || randomId());
}

const JSON_TYPE = "application/json";

function post(url: string, body: string): void {
  try {
    const n = navigator;
    if (n.sendBeacon && n.sendBeacon(url, new Blob([body], { type: JSON_TYPE }))) return;
  } catch {
    // Some browsers refuse a JSON Blob to another origin: use fetch.
  }
  try {
    fetch(url, {
      method: "POST",
      keepalive: true,
      credentials: "include",
      mode: "cors",
      headers: { "Content-Type": JSON_TYPE },
      body,
    }).catch(noop);
  } catch {
    // No way to send: drop the beacon rather than break the page.
  }
}

/** Creates a tracker for one visitor and makes it the default tracker. */
// Over 80 lines on purpose: the SDK's whole public surface is one closure over its state, so the bundle stays one small script.
export function init(options?: TallyInitOptions): TallyTracker {
  let sid: string | undefined;
  let uid: string | undefined;
  let eventsUrl: string | undefined;
  try {
    sid = options && options.sessionId;
    uid = options && options.userId;
    eventsUrl = options && options.eventsUrl;
  } catch {
    // a hostile options object: ignore it.
  }
  sid = sid || sessionId();
  try {
    eventsUrl = eventsUrl || scriptOrigin || location.origin;
  } catch {
    // no location: outside a page, conversions need the eventsUrl option.
  }
  const conversionUrl = String(eventsUrl).replace(/\/+$/, "") + "/v1/beacon/conversion";
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
        if (!inView || document.hidden) {
          cancel();
          return;
        }
        timer =
          timer ||
          setTimeout(() => {
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

  const orderBody = (order: TallyOrder): string => JSON.stringify({ ...order, session_id: order.session_id || sid, user_id: order.user_id || uid });

  const conversion = (order: TallyOrder, opts?: TallyConversionOptions): Promise<TallyConversionReply> | undefined => {
    try {
      if (opts && opts.waitForReply) {
        // async, so that a bad order rejects the promise the page awaits instead of throwing.
        return (async () => {
          const response = await fetch(conversionUrl, {
            method: "POST",
            credentials: "include",
            mode: "cors",
            headers: { "Content-Type": JSON_TYPE, Accept: JSON_TYPE },
            body: orderBody(order),
          });
          return { status: response.status, body: await response.json().catch(() => null) };
        })();
      }
      post(conversionUrl, orderBody(order));
    } catch {
      // never throw into the host page
    }
  };

  const tracker: TallyTracker = {
    sessionId: sid,
    userId: uid,
    conversion: conversion as TallyConversion,
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
export const conversion = ((order: TallyOrder, options?: TallyConversionOptions) => current().conversion(order, options)) as TallyConversion;

if (typeof window != "undefined" && !window.Tally) {
  window.Tally = { sessionId, init, impression, track, click, conversion, hashIdentity, sha256Hex };
}
