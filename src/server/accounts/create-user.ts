import { z } from "zod";
import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { hashPassword } from "./passwords";

export const ZCreateUserInput = z
  .object({
    email: z.email().trim().toLowerCase(),
    name: z.string().trim().min(1).max(200),
    password: z.string().min(10, "must be at least 10 characters").max(200),
    role: z.enum(["staff", "member"]),
    accountId: z.string().min(1).optional(),
  })
  .refine((user) => (user.role === "member") === (user.accountId !== undefined), {
    message: "a member belongs to exactly one account; staff to none",
    path: ["accountId"],
  });
export type TCreateUserInput = z.input<typeof ZCreateUserInput>;

export async function createUser(input: TCreateUserInput) {
  const data = ZCreateUserInput.parse(input);
  return db.user.create({
    data: {
      id: newId("usr"),
      email: data.email,
      name: data.name,
      passwordHash: await hashPassword(data.password),
      role: data.role,
      accountId: data.accountId,
    },
    select: { id: true, email: true, name: true, role: true, accountId: true },
  });
}
