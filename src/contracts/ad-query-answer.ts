// The answer of `POST /v1/ads`: a public contract shared by the server that builds it
// (src/server/pipeline/accept/ads/) and the browser SDK that consumes it (src/sdk/). Types only: no runtime code,
// so the SDK bundle stays free of anything but itself.

/** One served ad with its signed beacon addresses. */
export interface ServedAd {
  ad_id: string;
  campaign_id: string;
  type: "product" | "banner" | "video";
  /** The product through which a product ad matched the page. */
  sku?: string;
  media_url?: string;
  /** "WIDTHxHEIGHT", for example "728x90". */
  size?: string;
  destination_url?: string;
  impression_url: string;
  view_url: string;
  click_url: string;
}

export interface AdQueryAnswer {
  request_id: string;
  /** Every placement asked for, in the order given; empty when nothing was eligible. */
  ads: Record<string, ServedAd[]>;
}
