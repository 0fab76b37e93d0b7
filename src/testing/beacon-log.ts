// An accepted beacon as the route would append it to the log, for tests that write the log
// directly (a chosen shard, a whole stretch at once, traffic in bulk).
import { randomUUID } from "node:crypto";
import { shardOf } from "@/server/core/shards";
import type { BeaconToAppend } from "@/server/pipeline/accept/beacons/append-beacons.sql";
import { type BeaconClaims, sessionHashOf } from "@/server/pipeline/accept/beacons/beacon-token";
import type { EventKind } from "@/server/store/settle-types";

export const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";

/** What a served ad's token says of it: the fixture objects makeCampaignWithAd and makePublisher return. */
export interface ServedTarget {
  ad: { id: string; type: "product" | "banner" | "video"; size: string | null };
  campaign: { id: string; advertiserId: string };
  publisher: { id: string; sites: { name: string }[] };
}

interface ServedOptions {
  kind?: EventKind;
  requestId?: string;
  /** When the ad was served; now by default. */
  at?: Date;
  /** The placement it was served in ("home" by default) and its page context ("home" by default). */
  placementName?: string;
  context?: string;
  /** The normalised search term and category the token carries (none by default). */
  searchTerm?: string | null;
  category?: string | null;
}

/** The claims of a token served for `target` (on the publisher's first site) to `sessionId`. */
export function servedClaims(target: ServedTarget, sessionId: string, options: ServedOptions = {}): BeaconClaims {
  const { ad, campaign, publisher } = target;
  return {
    kind: options.kind ?? "impression",
    requestId: options.requestId ?? randomUUID(),
    adId: ad.id,
    campaignId: campaign.id,
    advertiserId: campaign.advertiserId,
    publisherId: publisher.id,
    site: publisher.sites[0]!.name,
    placementName: options.placementName ?? "home",
    context: options.context ?? "home",
    adType: ad.type,
    adSize: ad.size,
    searchTerm: options.searchTerm ?? null,
    category: options.category ?? null,
    issuedAt: Math.floor((options.at ?? new Date()).getTime() / 1000),
    sessionHash: sessionHashOf(sessionId),
  };
}

export function beaconToAppend(
  target: ServedTarget,
  sessionId: string,
  options: { kind?: EventKind; shard?: number; requestId?: string } = {},
): BeaconToAppend {
  return {
    eventId: randomUUID(),
    shard: options.shard ?? shardOf(target.ad.id, sessionId),
    claims: servedClaims(target, sessionId, options),
    sessionId,
    userId: null,
    userAgent: CHROME,
    isBot: false,
    sessionMatches: true,
    clientHash: null,
    pinnedAt: null,
  };
}
