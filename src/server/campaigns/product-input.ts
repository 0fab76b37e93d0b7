// The product form's schema, shared by the server and the dashboard: zod only.
import { z } from "zod";

export const ZCreateProductInput = z.object({
  advertiserId: z.string().min(1),
  sku: z.string().trim().min(1, "is required").max(100),
  productId: z.string().trim().min(1).max(100).optional(),
  name: z.string().trim().min(1, "is required").max(300),
  category: z.string().trim().min(1).max(200).optional(),
  imageUrl: z.string().max(2000).optional(),
  price: z.number({ message: "must be a number" }).positive("must be above 0").optional(),
});
export type TCreateProductInput = z.input<typeof ZCreateProductInput>;
