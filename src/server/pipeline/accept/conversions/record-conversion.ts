import { v7 as uuidv7 } from "uuid";
import { orderTotalMicros } from "@/contracts/order-token";
import { env } from "@/env";
import type { ApiKeyCaller } from "@/server/accounts/api-keys";
import { findPublisherWithSites, type PublisherWithSites } from "@/server/accounts/find-publisher.sql";
import { toEntries } from "@/server/core/ajv";
import { countOrderProof } from "@/server/core/counters";
import { TallyError, type ValidationEntry } from "@/server/core/errors";
import { toMicroUnits } from "@/server/core/money";
import { retryOnceOnConflict } from "@/server/db/retry";
import { GroupCommit, refusalOf } from "@/server/pipeline/accept/beacons/group-commit";
import type { ConversionOutcome } from "@/server/store/conversion-rows";
import { withinIntakeCeiling } from "../intake-ceiling";
import { appendConversionBatch, type ConversionToAppend, type OrderToAppend, orderToAppend } from "./append-conversions.sql";
import {
  type ConversionBody,
  CREATED_AT_MAX_AGE_SECONDS,
  CREATED_AT_MAX_AHEAD_SECONDS,
  MAX_ORDER_ITEMS,
  validateConversionBody,
} from "./conversion-body.schema";
import { assertKeyMayVerify, type Proof, proveOrder } from "./order-proof";

export const ACCEPTED_MESSAGE = "The conversion was received and will be processed soon.";

const holder = globalThis as unknown as {
  tallyConversionWriter?: GroupCommit<OrderToAppend, ConversionOutcome>;
  tallyPublisherCache?: Map<string, { publisher: PublisherWithSites | null; expiresAt: number }>;
};

/**
 * Orders waiting for a transaction are weighed by their size (as the log stores them): at most
 * 32 MiB wait, so a flood of large orders is answered 503 rather than held in memory; and one
 * append carries at most 4 MiB of them.
 */
export const CONVERSION_QUEUE_BYTES = 32 * 1024 * 1024;
export const CONVERSION_BATCH_BYTES = 4 * 1024 * 1024;

export function conversionWriter(): GroupCommit<OrderToAppend, ConversionOutcome> {
  holder.tallyConversionWriter ??= new GroupCommit((batch: OrderToAppend[]) => retryOnceOnConflict(() => appendConversionBatch(batch)), {
    maxBatch: 500,
    maxBatchWeight: CONVERSION_BATCH_BYTES,
    maxInFlight: 2,
    maxQueuedWeight: CONVERSION_QUEUE_BYTES,
  });
  return holder.tallyConversionWriter;
}

/** Bytes of orders waiting in this process for their transaction (for /api/metrics). */
export const conversionWriterDepth = (): number => holder.tallyConversionWriter?.depth ?? 0;

// Every conversion names its publisher: a short-lived cache keeps that lookup off the database
// for all but the first order of a minute. A site added to a publisher is seen within a minute;
// an id refused as unknown is looked up again after a few seconds.
const KNOWN_TTL_MS = 60_000;
const UNKNOWN_TTL_MS = 5_000;
const CACHE_LIMIT = 10_000;

async function cachedPublisher(publisherId: string, now: number): Promise<PublisherWithSites | null> {
  holder.tallyPublisherCache ??= new Map();
  const cache = holder.tallyPublisherCache;
  const hit = cache.get(publisherId);
  if (hit && hit.expiresAt > now) return hit.publisher;
  const publisher = await findPublisherWithSites(publisherId);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(publisherId, { publisher, expiresAt: now + (publisher ? KNOWN_TTL_MS : UNKNOWN_TTL_MS) });
  return publisher;
}

// Built once: localeCompare with options builds a collator on every call, many times the cost of
// a cached one under the conversions benchmark (bench/results.md).
const collator = new Intl.Collator(undefined, { sensitivity: "accent" });
const sameText = (a: string, b: string) => collator.compare(a, b) === 0;

/**
 * The site of the sale: `brand` names one of the publisher's sites (by name or domain, any
 * case); without it, the publisher's only site. Entries in Ajv's format otherwise, so they join
 * the schema's entries in one 422 body.
 */
function resolveSite(publisher: PublisherWithSites, brand: string | undefined): string | ValidationEntry {
  const { sites } = publisher;
  if (brand !== undefined) {
    const site = sites.find((s) => sameText(s.name, brand) || (s.domain !== null && sameText(s.domain, brand)));
    if (site) return site.name;
    if (sites.length === 0) return brand;
    return {
      instancePath: "/brand",
      schemaPath: "#/properties/brand/enum",
      keyword: "enum",
      params: { allowedValues: sites.map((s) => s.name) },
      message: "must be one of the publisher's sites",
    };
  }
  if (sites.length > 1) {
    return {
      instancePath: "",
      schemaPath: "#/required",
      keyword: "required",
      params: { missingProperty: "brand" },
      message: "must have required property 'brand'",
    };
  }
  return sites[0]?.name ?? publisher.id;
}

const unknownPublisher = (publisherId: string): ValidationEntry => ({
  instancePath: "/publisher_id",
  schemaPath: "#/properties/publisher_id/publisher",
  keyword: "publisher",
  params: { publisher_id: publisherId },
  message: "must be a known publisher",
});

// Ajv would walk every line of an oversized items array and list a violation per line; checked
// first, such a body costs one comparison and gets the one entry Ajv would put first.
const tooManyItems: ValidationEntry = {
  instancePath: "/items",
  schemaPath: "#/properties/items/maxItems",
  keyword: "maxItems",
  params: { limit: MAX_ORDER_ITEMS },
  message: `must NOT have more than ${MAX_ORDER_ITEMS} items`,
};

/** The entry of an order larger than TALLY_ORDER_MAX_BYTES as stored: its lines and fields as JSON. */
const orderTooLarge = (bytes: number, limit: number): ValidationEntry => ({
  instancePath: "",
  schemaPath: "#/maxBytes",
  keyword: "maxBytes",
  params: { limit, bytes },
  message: `must NOT be larger than ${limit} bytes as stored (its lines and fields as JSON); this order is ${bytes}`,
});

/**
 * created_at within the 30 days that de-duplication remembers, and no further ahead than a
 * client's clock may drift: an order placed outside that range could be stored twice, or would
 * sit ahead of every export and report. Entries as ajv-formats reports formatMinimum and
 * formatMaximum, with the limits computed at `now`.
 */
function createdAtOutOfRange(createdAt: unknown, now: number): ValidationEntry | null {
  if (typeof createdAt !== "string") return null;
  const placed = Date.parse(createdAt);
  if (Number.isNaN(placed)) return null;
  const earliest = new Date(now - CREATED_AT_MAX_AGE_SECONDS * 1000).toISOString();
  const latest = new Date(now + CREATED_AT_MAX_AHEAD_SECONDS * 1000).toISOString();
  if (placed < Date.parse(earliest)) {
    return {
      instancePath: "/created_at",
      schemaPath: "#/properties/created_at/formatMinimum",
      keyword: "formatMinimum",
      params: { comparison: ">=", limit: earliest },
      message: `should be >= ${earliest} (at most 30 days ago)`,
    };
  }
  if (placed > Date.parse(latest)) {
    return {
      instancePath: "/created_at",
      schemaPath: "#/properties/created_at/formatMaximum",
      keyword: "formatMaximum",
      params: { comparison: "<=", limit: latest },
      message: `should be <= ${latest} (at most 5 minutes ahead)`,
    };
  }
  return null;
}

/**
 * Validates a conversion body: Ajv's entries for the schema, plus the rules that need the
 * database or the clock (a known publisher; `brand` when it has several sites; created_at in
 * range), all in one 422.
 */
async function validateConversion(body: unknown, now: number): Promise<{ conversion: ConversionBody; site: string; publisher: PublisherWithSites }> {
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  if (Array.isArray(record.items) && record.items.length > MAX_ORDER_ITEMS) throw TallyError.validation([tooManyItems]);
  const entries: ValidationEntry[] = validateConversionBody(body) ? [] : toEntries(validateConversionBody.errors);
  // Only a created_at the schema accepts as a date-time is compared (Date.parse would read 30 February as 2 March).
  const outOfRange = entries.some((entry) => entry.instancePath === "/created_at") ? null : createdAtOutOfRange(record.created_at, now);
  if (outOfRange) entries.push(outOfRange);
  let site: string | undefined;
  let publisher: PublisherWithSites | null = null;
  if (typeof record.publisher_id === "string" && record.publisher_id.length > 0) {
    publisher = await cachedPublisher(record.publisher_id, now);
    if (!publisher) {
      entries.push(unknownPublisher(record.publisher_id));
    } else {
      const resolved = resolveSite(publisher, typeof record.brand === "string" ? record.brand : undefined);
      if (typeof resolved === "string") site = resolved;
      else entries.push(resolved);
    }
  }
  if (entries.length > 0 || site === undefined || publisher === null) throw TallyError.validation(entries);
  return { conversion: body as ConversionBody, site, publisher };
}

const lowerOrNull = (hash: string | undefined) => (hash === undefined ? null : hash.toLowerCase());

function toAppend(conversion: ConversionBody, site: string, receivedAt: Date | null, proof: Proof, totalMicros: bigint): ConversionToAppend {
  return {
    // Time-ordered (UUIDv7): ids written at the same time sit together in every index on them.
    event_id: uuidv7(),
    publisher_id: conversion.publisher_id,
    order_id: conversion.order_id,
    user_id: conversion.user_id,
    session_id: conversion.session_id,
    channel: conversion.channel,
    site,
    placed_at: new Date(conversion.created_at),
    gender: conversion.gender ?? null,
    uf: conversion.uf ?? null,
    city: conversion.city ?? null,
    is_company: conversion.is_company ?? null,
    email_hashed: conversion.email_hashed.toLowerCase(),
    phone_hashed: lowerOrNull(conversion.phone_hashed),
    social_id_hashed: lowerOrNull(conversion.social_id_hashed),
    first_name_hashed: lowerOrNull(conversion.first_name_hashed),
    last_name_hashed: lowerOrNull(conversion.last_name_hashed),
    received_at: receivedAt,
    items: conversion.items.map((item) => ({
      sku: item.sku,
      product_id: item.product_id ?? null,
      seller_id: item.seller_id ?? null,
      quantity: item.quantity,
      price_micros: toMicroUnits(item.price),
      promotional_price_micros: toMicroUnits(item.promotional_price),
    })),
    verified_by: proof.verifiedBy,
    total_micros: totalMicros.toString(),
  };
}

export interface RecordedConversion {
  eventId: string;
  outcome: ConversionOutcome;
  /** The 202 body's `messages`. */
  messages: string[];
  /** Whether the order was verified (by the publisher's API key, or its token). */
  verified: boolean;
}

/**
 * Validates a conversion (422 with Ajv's entries), then appends it to the log of accepted orders
 * unless the publisher sent the same order_id in the last 30 days. `key`: the API key the order
 * came with (already authenticated), which must be the publisher's own (403 otherwise, before the
 * body is validated) and verifies it; without one, a valid `order_token` does. An order neither
 * verifies counts against its publisher's daily ceiling (429 past it: ../intake-ceiling.ts). Resolves once
 * committed; 503 when the database could not store it. Settling stores it in conversions
 * (src/server/pipeline/settle/), and attribution happens after that (attributePendingConversions).
 */
export async function recordConversion(body: unknown, now?: Date, { key = null }: { key?: ApiKeyCaller | null } = {}): Promise<RecordedConversion> {
  if (key) assertKeyMayVerify(key, typeof body === "object" && body !== null ? (body as { publisher_id?: unknown }).publisher_id : undefined);
  const at = (now ?? new Date()).getTime();
  const { conversion, site, publisher } = await validateConversion(body, at);
  const totalMicros = orderTotalMicros(conversion.items);
  const proof = await proveOrder(conversion, totalMicros, key, at);
  const order = orderToAppend(
    toAppend(conversion, site, now ?? null, proof, totalMicros),
    proof.verifiedBy !== null && !publisher.credit_unverified_conversions,
  );
  const limit = env().TALLY_ORDER_MAX_BYTES;
  if (order.bytes > limit) throw TallyError.validation([orderTooLarge(order.bytes, limit)]);
  if (proof.verifiedBy === null) {
    const admission = withinIntakeCeiling("orders", conversion.publisher_id, order.bytes);
    if (admission) await admission;
  }
  let outcome: ConversionOutcome;
  try {
    // Weighed by its size: the memory it holds while it waits, and its share of one append.
    outcome = await conversionWriter().submit(order, order.bytes);
  } catch (error) {
    throw refusalOf(error, "conversion");
  }
  countOrderProof(proof.outcome);
  const messages =
    outcome === "stored" ? [ACCEPTED_MESSAGE] : [`Order ${conversion.order_id} was already received in the last 30 days; this copy was ignored.`];
  if (proof.message) messages.push(proof.message);
  return { eventId: order.order.event_id, outcome, messages, verified: proof.verifiedBy !== null };
}
