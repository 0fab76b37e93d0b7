// A publisher's conversion trust settings: whether only verified orders are credited, its
// plausibility limits, and its order-signing secret (made or rotated here, shown once).
import { z } from "zod";
import { getConversionTrust, updateConversionTrust } from "@/server/pipeline/accept/conversions/conversion-trust";
import { rotateSigningSecret } from "@/server/pipeline/accept/conversions/signing-secrets";
import { ZConversionTrustInput, ZRotateSigningSecretInput } from "@/server/pipeline/accept/conversions/trust-input";
import { router, signedInProcedure } from "../trpc";

export const conversionTrustRouter = router({
  get: signedInProcedure
    .input(z.object({ publisherId: z.string().min(1) }))
    .query(({ ctx, input }) => getConversionTrust({ actor: ctx.viewer, publisherId: input.publisherId })),
  update: signedInProcedure.input(ZConversionTrustInput).mutation(({ ctx, input }) => updateConversionTrust({ ...input, actor: ctx.viewer })),
  /** The answer holds the new secret itself: the only time it exists in clear. */
  rotateSecret: signedInProcedure.input(ZRotateSigningSecretInput).mutation(({ ctx, input }) => rotateSigningSecret({ ...input, actor: ctx.viewer })),
});
