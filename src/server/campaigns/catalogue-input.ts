// The publisher catalogue form's schema, shared by the server and the dashboard: zod only.
import { z } from "zod";

/** One line of a publisher's catalogue: this SKU (and its product id) is this advertiser's there. */
export const ZCatalogueEntryInput = z.object({
  publisherId: z.string().min(1),
  // Trimmed and bounded as products' SKUs and product ids are, so the two compare equal.
  sku: z.string().trim().min(1, "is required").max(100),
  advertiserId: z.string().min(1, "pick the brand that owns it"),
  productId: z.string().trim().min(1).max(100).optional(),
});
export type TCatalogueEntryInput = z.input<typeof ZCatalogueEntryInput>;

export const ZCatalogueKeyInput = z.object({ publisherId: z.string().min(1), sku: z.string().trim().min(1).max(100) });
