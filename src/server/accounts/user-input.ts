// What a user is made of, as forms and the server check it: zod and plain values only, so the
// dashboard's pages import it without the database.
import { z } from "zod";

/** What a member may do in their account: change it (admin), or read and download only (viewer). */
export type MemberRole = "admin" | "viewer";
export const MEMBER_ROLES = ["admin", "viewer"] as const satisfies readonly MemberRole[];

/** A password as Tally takes one, from the operator's CLI and on an invitation's page alike. */
export const ZPassword = z.string().min(10, "must be at least 10 characters").max(200);
