// Accounts the viewer can see: all of them for staff, their own for a member.
import { db } from "@/server/db/client";
import { router, signedInProcedure } from "../trpc";

export const accountsRouter = router({
  list: signedInProcedure.query(async ({ ctx }) =>
    db.account.findMany({
      where: ctx.viewer.role === "staff" ? {} : { id: ctx.viewer.accountId ?? "\u0000" },
      select: { id: true, name: true, kind: true, networkId: true, currency: true },
      orderBy: [{ kind: "asc" }, { name: "asc" }],
    }),
  ),
});
