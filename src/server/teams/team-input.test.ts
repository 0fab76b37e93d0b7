import { describe, expect, it } from "vitest";
import { invitationText } from "./invitation-mail";
import { ZAcceptInvitationInput, ZInvitationToken, ZInviteInput } from "./team-input";

describe("an invitation's payloads", () => {
  it("store the e-mail trimmed and in lower case, and take only admin or viewer", () => {
    expect(ZInviteInput.parse({ accountId: "adv_1", email: "  Bea@Brand.Example ", role: "viewer" }).email).toBe("bea@brand.example");
    expect(ZInviteInput.safeParse({ accountId: "adv_1", email: "bea@brand.example", role: "owner" }).success).toBe(false);
    expect(ZInviteInput.safeParse({ accountId: "adv_1", email: "not an e-mail", role: "admin" }).error?.issues[0]?.message).toBe("must be an e-mail address");
  });

  it("ask a password of 10 characters or more, twice the same", () => {
    const accept = (password: string, passwordAgain: string) => ZAcceptInvitationInput.safeParse({ token: "t", name: "Bea", password, passwordAgain });
    expect(accept("long enough!", "long enough!").success).toBe(true);
    expect(accept("short", "short").error?.issues[0]).toMatchObject({ path: ["password"], message: "must be at least 10 characters" });
    expect(accept("long enough!", "long enough?").error?.issues[0]).toMatchObject({ path: ["passwordAgain"], message: "does not match the password" });
  });

  it("take a token only as 43 base64url characters, as links carry them", () => {
    expect(ZInvitationToken.safeParse("a".repeat(43)).success).toBe(true);
    for (const token of ["a".repeat(42), `${"a".repeat(42)}=`, `${"a".repeat(42)}/`, ""]) expect(ZInvitationToken.safeParse(token).success).toBe(false);
  });

  it("are mailed with the link, the account, the role and the expiry in words", () => {
    const mail = invitationText({
      to: "bea@brand.example",
      accountName: "Acme Coffee",
      role: "viewer",
      link: "https://tally.example.com/invite/abc",
      expiresAt: new Date("2026-12-05T10:30:00Z"),
      invitedBy: "Ana (ana@tally.example)",
    });
    expect(mail.subject).toBe("You are invited to Acme Coffee on Tally");
    expect(mail.text).toContain("Ana (ana@tally.example) invites you to join Acme Coffee on Tally as a viewer (reads figures and downloads files).");
    expect(mail.text).toContain("\nhttps://tally.example.com/invite/abc\n");
    expect(mail.text).toContain("until 2026-12-05 10:30 UTC");
  });
});
