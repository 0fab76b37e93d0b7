import type { FromSchema } from "json-schema-to-ts";
import { compileValidator } from "@/server/core/ajv";

export const AD_CONTEXTS = ["home", "search", "category", "product", "cart", "checkout", "other"] as const;
export const PLACEMENT_TYPES = ["product", "banner", "video"] as const;

/** Body of `POST /v1/ads` (docs/interface-decisions.md §2), plus an optional `site` for multi-site publishers. */
export const adQuerySchema = {
  type: "object",
  properties: {
    publisher_id: { type: "string", minLength: 1, maxLength: 64, format: "identifier" },
    session_id: { type: "string", minLength: 1, maxLength: 256, format: "identifier" },
    user_id: { type: ["string", "null"], maxLength: 256, format: "identifier" },
    site: { type: "string", minLength: 1, maxLength: 200, format: "text" },
    context: { type: "string", enum: AD_CONTEXTS },
    term: { type: "string", maxLength: 200, format: "text" },
    category: { type: "string", maxLength: 200, format: "text" },
    product_sku: { type: "string", maxLength: 100, format: "identifier" },
    placements: {
      type: "array",
      minItems: 1,
      maxItems: 10,
      items: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1, maxLength: 100, format: "identifier" },
          types: { type: "array", minItems: 1, uniqueItems: true, items: { type: "string", enum: PLACEMENT_TYPES } },
          size: { type: "string", pattern: "^[0-9]{1,4}x[0-9]{1,4}$" },
          quantity: { type: "integer", minimum: 1, maximum: 10 },
        },
        required: ["name", "types"],
      },
    },
  },
  required: ["publisher_id", "session_id", "context", "placements"],
} as const;

export type AdQuery = FromSchema<typeof adQuerySchema>;
export const parseAdQuery = compileValidator<AdQuery>(adQuerySchema);
