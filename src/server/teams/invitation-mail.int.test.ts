// With SMTP_URL set, an invitation goes out by e-mail, to a real SMTP server started here, with
// the link in the message; the dashboard is then not given the link. An e-mail the server
// refuses creates nothing.
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { signIn } from "@/server/accounts/sessions";
import { db } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";
import { makePublisher } from "@/testing/fixtures";
import { invitationPreview } from "./invitations";

const PORT = 20_000 + Math.floor(Math.random() * 20_000);
// Read when Tally's environment is first read, which no code of this file has done yet.
process.env.SMTP_URL = `smtp://127.0.0.1:${PORT}`;
process.env.SMTP_FROM = "Tally Invitations <invitations@tally.test>";
process.env.TALLY_PUBLIC_URL = "https://tally.example.com/";

interface Received {
  from: string;
  to: string[];
  message: string;
}
const received: Received[] = [];
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS", "AUTH"],
  onRcptTo(address, _session, callback) {
    callback(address.address === "refused@shop.test" ? Object.assign(new Error("mailbox unavailable"), { responseCode: 550 }) : undefined);
  },
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
        to: session.envelope.rcptTo.map((r) => r.address),
        message: Buffer.concat(chunks).toString("utf8"),
      });
      callback();
    });
  },
});

/** The text of a quoted-printable body, as a mail reader shows it. */
const unquoted = (message: string) =>
  message.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(PORT, "127.0.0.1", resolve));
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("an invitation with SMTP_URL set", () => {
  it("is mailed with its link, which is not shown in the dashboard, and opens the invitation", async () => {
    await createUser({ email: "staff@mail.test", name: "Mail Staff", password: "correct horse battery", role: "staff" });
    const staff = (await signIn("staff@mail.test", "correct horse battery")).viewer;
    const shop = await makePublisher();
    const answer = await createCaller({ viewer: staff, origin: "http://internal:3000" }).teams.invite({
      accountId: shop.id,
      email: "Owner@Shop.Test",
      role: "viewer",
    });
    expect(answer).toMatchObject({ mailed: true, link: null });

    expect(received).toHaveLength(1);
    const [mail] = received;
    expect(mail!.from).toBe("invitations@tally.test");
    expect(mail!.to).toEqual(["owner@shop.test"]);
    const text = unquoted(mail!.message);
    expect(text).toContain(`Subject: You are invited to ${shop.name} on Tally`);
    expect(text).toContain("Mail Staff (staff@mail.test) invites you to join");
    const link = text.match(/https:\/\/tally\.example\.com\/invite\/([A-Za-z0-9_-]{43})/);
    expect(link).not.toBeNull();
    expect(await invitationPreview(link![1]!)).toMatchObject({ accountName: shop.name, email: "owner@shop.test", role: "viewer" });
  });

  it("creates nothing when the SMTP server refuses the e-mail", async () => {
    const staff = (await signIn("staff@mail.test", "correct horse battery")).viewer;
    const shop = await makePublisher();
    await expect(createCaller({ viewer: staff }).teams.invite({ accountId: shop.id, email: "refused@shop.test", role: "admin" })).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: expect.stringContaining("the invitation e-mail could not be sent"),
    });
    expect(await db.userInvitation.count({ where: { email: "refused@shop.test" } })).toBe(0);
    expect(await db.activityEntry.count({ where: { action: "user.invited", accountId: shop.id } })).toBe(0);
  });
});
