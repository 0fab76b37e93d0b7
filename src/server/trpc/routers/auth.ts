// Sign-in, sign-out and who is signed in. The session token travels only in an http-only cookie.
import { z } from "zod";
import { signOut } from "@/server/accounts/sessions";
import { type SignInClient, signInWithinLimits } from "@/server/accounts/sign-in-limits";
import { addressKey, clientAddressHash } from "@/server/http/client-address";
import { publicProcedure, router } from "../trpc";

/** The client as sign-in limits count it; null when its address is unknown. */
const signInClient = (address: string | null): SignInClient | null =>
  address === null ? null : { key: addressKey(address), hash: clientAddressHash(address)! };

export const authRouter = router({
  signIn: publicProcedure
    .input(z.object({ email: z.string().trim().min(3).max(320), password: z.string().min(1).max(200) }))
    .mutation(async ({ ctx, input }) => {
      const { token, expiresAt, viewer } = await signInWithinLimits({ ...input, client: signInClient(ctx.clientAddress ?? null) });
      ctx.setSessionCookie?.(token, expiresAt);
      return viewer;
    }),
  signOut: publicProcedure.mutation(async ({ ctx }) => {
    await signOut(ctx.sessionToken);
    ctx.setSessionCookie?.(null);
    return { signedOut: true };
  }),
  me: publicProcedure.query(({ ctx }) => ctx.viewer),
});
