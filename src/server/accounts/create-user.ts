import { z } from "zod";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { hashPassword } from "./passwords";
import { MEMBER_ROLES, ZPassword } from "./user-input";

export const ZCreateUserInput = z
  .object({
    email: z.email().trim().toLowerCase(),
    name: z.string().trim().min(1).max(200),
    password: ZPassword,
    role: z.enum(["staff", "member"]),
    accountId: z.string().min(1).optional(),
    /** A member's role in their account; admin unless told (members could always change their account). */
    memberRole: z.enum(MEMBER_ROLES).optional(),
  })
  .refine((user) => (user.role === "member") === (user.accountId !== undefined), {
    message: "a member belongs to exactly one account; staff to none",
    path: ["accountId"],
  })
  .refine((user) => user.role === "member" || user.memberRole === undefined, { message: "staff have no role in an account", path: ["memberRole"] });
export type TCreateUserInput = z.input<typeof ZCreateUserInput>;

export const USER_SUMMARY = { id: true, email: true, name: true, role: true, accountId: true, memberRole: true, createdAt: true } as const;

/** The row a user is created as, its password hashed: for createUser and for an accepted invitation's transaction. */
export async function newUserRow(input: TCreateUserInput) {
  const data = ZCreateUserInput.parse(input);
  return {
    id: newId("usr"),
    email: data.email,
    name: data.name,
    passwordHash: await hashPassword(data.password),
    role: data.role,
    accountId: data.accountId,
    memberRole: data.role === "member" ? (data.memberRole ?? "admin") : null,
  };
}

export async function createUser(input: TCreateUserInput) {
  return db.user.create({ data: await newUserRow(input), select: USER_SUMMARY });
}
