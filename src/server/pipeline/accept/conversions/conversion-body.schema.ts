import { type ConversionBody, conversionBodySchema } from "@/contracts/conversion.schema";
import { ajv } from "@/server/core/ajv";

export type { ConversionBody, ConversionItemBody } from "@/contracts/conversion.schema";
export {
  CREATED_AT_MAX_AGE_SECONDS,
  CREATED_AT_MAX_AHEAD_SECONDS,
  conversionBodySchema,
  conversionItemSchema,
  EMPTY_STRING_SHA256,
  MAX_ORDER_ITEMS,
  MAX_QUANTITY,
  MAX_UNIT_PRICE,
} from "@/contracts/conversion.schema";

/** Ajv's own validator of the schema: its `errors` are the 422 body. */
export const validateConversionBody = ajv.compile<ConversionBody>(conversionBodySchema);
