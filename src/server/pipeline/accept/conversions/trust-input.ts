// The conversion trust form's schema (credit orders without proof, the two plausibility limits),
// shared by the server and the dashboard: zod only.
import { z } from "zod";
import { MAX_ORDER_ITEMS, MAX_QUANTITY, MAX_UNIT_PRICE } from "@/contracts/conversion.schema";

/** The largest order total an order can have at all (500 lines of the largest price and quantity): a limit above it limits nothing. */
export const LARGEST_ORDER_TOTAL = MAX_ORDER_ITEMS * MAX_UNIT_PRICE * MAX_QUANTITY;

export const ZConversionTrustInput = z.object({
  publisherId: z.string().min(1),
  /** Orders sent without proof are credited too (off by default: only proven orders move figures). */
  creditUnverified: z.boolean(),
  /** Currency units; null: Tally's default (TALLY_MAX_ORDER_TOTAL). */
  maxOrderTotal: z
    .number({ message: "must be a number" })
    .positive("must be above 0")
    .max(LARGEST_ORDER_TOTAL, `must be at most ${LARGEST_ORDER_TOTAL.toLocaleString("en")}`)
    .nullable(),
  /** Units of one line; null: Tally's default (TALLY_MAX_LINE_QUANTITY). */
  maxLineQuantity: z
    .number({ message: "must be a number" })
    .positive("must be above 0")
    .max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY.toLocaleString("en")}`)
    .nullable(),
});
export type TConversionTrustInput = z.input<typeof ZConversionTrustInput>;

export const ZRotateSigningSecretInput = z.object({ publisherId: z.string().min(1), retirePreviousNow: z.boolean().default(false) });
