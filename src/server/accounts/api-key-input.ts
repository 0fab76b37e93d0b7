// The new API key form's schema, shared by the server and the dashboard: zod only.
import { z } from "zod";

export const ZCreateApiKeyInput = z.object({
  accountId: z.string().min(1),
  name: z.string().trim().min(1, "is required").max(100, "is at most 100 characters"),
});
export type TCreateApiKeyInput = z.input<typeof ZCreateApiKeyInput>;
