import { conversionBodySchema, type ConversionBody } from "@/contracts/conversion.schema";
import { ajv } from "@/server/validation/ajv";

export { conversionBodySchema, conversionItemSchema, EMPTY_STRING_SHA256 } from "@/contracts/conversion.schema";
export type { ConversionBody, ConversionItemBody } from "@/contracts/conversion.schema";

/** Ajv's own validator of the schema: its `errors` are the 422 body. */
export const validateConversionBody = ajv.compile<ConversionBody>(conversionBodySchema);
