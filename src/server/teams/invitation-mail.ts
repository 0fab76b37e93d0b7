// The invitation e-mail, sent through the SMTP server SMTP_URL names (nodemailer). Without one,
// nothing is mailed and whoever invited passes the link on themselves.
import nodemailer from "nodemailer";
import { env } from "@/env";

export interface InvitationMail {
  to: string;
  accountName: string;
  role: "admin" | "viewer";
  link: string;
  expiresAt: Date;
  invitedBy: string;
}

/** Whether invitations are mailed (SMTP_URL is set). */
export const mailsInvitations = (): boolean => env().SMTP_URL !== undefined;

const ROLE_IN_WORDS = { admin: "an admin (changes campaigns, ads, keys and settings)", viewer: "a viewer (reads figures and downloads files)" } as const;

export function invitationText(mail: InvitationMail): { subject: string; text: string } {
  return {
    subject: `You are invited to ${mail.accountName} on Tally`,
    text: [
      `${mail.invitedBy} invites you to join ${mail.accountName} on Tally as ${ROLE_IN_WORDS[mail.role]}.`,
      "",
      "Choose your name and password here:",
      mail.link,
      "",
      `The link works once, until ${mail.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC.`,
      "If you did not expect it, ignore this e-mail.",
    ].join("\n"),
  };
}

/** Sends the invitation; throws when the SMTP server refuses it or cannot be reached. */
export async function sendInvitationMail(mail: InvitationMail): Promise<void> {
  const config = env();
  if (!config.SMTP_URL) throw new Error("SMTP_URL is not set");
  const transport = nodemailer.createTransport(config.SMTP_URL);
  try {
    await transport.sendMail({ from: config.SMTP_FROM, to: mail.to, ...invitationText(mail) });
  } finally {
    transport.close();
  }
}
