import { randomUUID } from "node:crypto";
import type { AdQueryAnswer, ServedAd } from "@/contracts/ad-query-answer";
import { findPublisherWithSites, type PublisherWithSites } from "@/server/accounts/find-publisher.sql";
import { TallyError, type ValidationEntry } from "@/server/core/errors";
import { blockingKeys } from "@/server/core/negative-term-keys";
import { normaliseCategory, normaliseSearchTerm } from "@/server/core/search-terms";
import { type SigningKey, sessionHashOf, signBeaconToken } from "@/server/pipeline/accept/beacons/beacon-token";
import { EVENT_KINDS } from "@/server/store/settle-types";
import type { AdQuery } from "./ad-query.schema";
import { findCandidateAds } from "./candidate-ads.sql";
import { fillPlacements, rankAds } from "./rank-ads";

export type { AdQueryAnswer, ServedAd };

interface QueryAdsInput {
  query: AdQuery;
  /** Origin of the events host, for the beacon addresses. */
  eventsUrl: string;
  /** Host of the page that asked (Origin or Referer), to tell which site of a publisher it is. */
  pageHost?: string;
  signingKey: SigningKey;
  now?: Date;
}

function entry(instancePath: string, keyword: string, params: Record<string, unknown>, message: string, schemaPath: string): ValidationEntry {
  return { instancePath, schemaPath, keyword, params, message };
}

/**
 * Which of the publisher's sites is asking: the `site` given, else the site whose domain is the
 * page's host, else the only site. A publisher with several sites must say which.
 */
function resolveSite(publisher: PublisherWithSites, query: AdQuery, pageHost?: string): string {
  if (query.site !== undefined) {
    if (publisher.sites.some((site) => site.name === query.site)) return query.site;
    throw TallyError.validation([
      entry("/site", "enum", { allowedValues: publisher.sites.map((s) => s.name) }, "must be one of the publisher's sites", "#/properties/site/enum"),
    ]);
  }
  const host = pageHost?.toLowerCase();
  const byHost = host ? publisher.sites.find((site) => site.domain && (host === site.domain || host.endsWith(`.${site.domain}`))) : undefined;
  if (byHost) return byHost.name;
  if (publisher.sites.length === 1) return publisher.sites[0]!.name;
  if (publisher.sites.length === 0) return publisher.id;
  throw TallyError.validation([entry("", "required", { missingProperty: "site" }, "must have required property 'site'", "#/required")]);
}

/** POST /v1/ads: the eligible ads for each placement, each with its signed beacon addresses. */
export async function queryAds({ query, eventsUrl, pageHost, signingKey, now = new Date() }: QueryAdsInput): Promise<AdQueryAnswer> {
  const publisher = await findPublisherWithSites(query.publisher_id);
  if (!publisher) {
    throw TallyError.validation([
      entry("/publisher_id", "publisher", { publisher_id: query.publisher_id }, "must be a known publisher", "#/properties/publisher_id"),
    ]);
  }
  const site = resolveSite(publisher, query, pageHost);
  const wantedTypes = [...new Set(query.placements.flatMap((placement) => placement.types))];
  const publisherIds = publisher.network_id ? [publisher.id, publisher.network_id] : [publisher.id];
  // What every ad of the query keeps of the term and category, and what negative terms are
  // matched against: normalised once, never as typed (ranking below reads the raw query).
  const searchTerm = normaliseSearchTerm(query.term);
  const category = normaliseCategory(query.category);
  const candidates = await findCandidateAds(publisherIds, now, wantedTypes, blockingKeys(searchTerm));
  const placed = fillPlacements(rankAds(candidates), query.placements, query);

  const requestId = randomUUID();
  const issuedAt = Math.floor(now.getTime() / 1000);
  const sessionHash = sessionHashOf(query.session_id);
  const ads: Record<string, ServedAd[]> = Object.fromEntries(query.placements.map((p) => [p.name, []]));
  for (const { placement, ad, product } of placed) {
    const urls = Object.fromEntries(
      EVENT_KINDS.map((kind) => {
        const token = signBeaconToken(
          {
            kind,
            requestId,
            adId: ad.ad_id,
            campaignId: ad.campaign_id,
            advertiserId: ad.advertiser_id,
            publisherId: publisher.id,
            site,
            placementName: placement,
            context: query.context,
            adType: ad.ad_type,
            adSize: ad.size,
            searchTerm,
            category,
            issuedAt,
            sessionHash,
          },
          signingKey,
        );
        return [`${kind}_url`, `${eventsUrl}/v1/beacon/${kind}/${token}`];
      }),
    ) as Pick<ServedAd, "impression_url" | "view_url" | "click_url">;
    const mediaUrl = ad.media_url ?? product?.image_url ?? undefined;
    ads[placement]!.push({
      ad_id: ad.ad_id,
      campaign_id: ad.campaign_id,
      type: ad.ad_type,
      ...(product ? { sku: product.sku } : {}),
      ...(mediaUrl ? { media_url: mediaUrl } : {}),
      ...(ad.size ? { size: ad.size } : {}),
      ...(ad.destination_url ? { destination_url: ad.destination_url } : {}),
      ...urls,
    });
  }
  return { request_id: requestId, ads };
}
