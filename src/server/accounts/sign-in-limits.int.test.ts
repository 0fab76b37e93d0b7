// The sign-in limits as a guesser meets them, counted in Postgres: a back-off per e-mail and
// client address that a stranger's guesses cannot turn into a lockout of the owner elsewhere, the
// e-mail-wide slow-down for addresses new to an e-mail, and what the tables keep.
// Low limits for this file only: the env module reads them on first use.
process.env.TALLY_SIGN_IN_ATTEMPTS_PER_ADDRESS = "40";
process.env.TALLY_SIGN_IN_FREE_FAILURES = "3";
process.env.TALLY_SIGN_IN_BACKOFF_SECONDS = "30";
process.env.TALLY_SIGN_IN_BACKOFF_MAX_SECONDS = "120";
process.env.TALLY_SIGN_IN_FAILURES_PER_EMAIL = "6";
process.env.TALLY_SIGN_IN_NEW_ADDRESS_ATTEMPTS_PER_MINUTE = "2";

import { TRPCError } from "@trpc/server";
import { afterAll, describe, expect, it } from "vitest";
import { createUser } from "@/server/accounts/create-user";
import { TallyError } from "@/server/core/errors";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { createCaller } from "@/server/trpc/root";
import { metricsText } from "@/server/upkeep/prometheus";
import { deleteExpiredBackoff } from "./sign-in-limits";

afterAll(() => {
  for (const name of Object.keys(process.env)) if (name.startsWith("TALLY_SIGN_IN_")) delete process.env[name];
});

const PASSWORD = "correct horse battery staple";
let counter = 0;
/** A user of its own for each test, so no test's counts reach another's. */
async function user(): Promise<string> {
  counter += 1;
  const email = `owner-${counter}@tally.test`;
  await createUser({ email, name: `Owner ${counter}`, password: PASSWORD, role: "staff" });
  return email;
}

/** The outcome of one sign-in: "OK", the tRPC code, and the wait a 429 asks for. */
async function attempt(email: string, password: string, clientAddress: string | null): Promise<{ code: string; retryAfter?: number }> {
  try {
    await createCaller({ viewer: null, clientAddress }).auth.signIn({ email, password });
    return { code: "OK" };
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    const retryAfter = error.cause instanceof TallyError ? error.cause.details?.retryAfterSeconds : undefined;
    return retryAfter === undefined ? { code: error.code } : { code: error.code, retryAfter };
  }
}
const codes = async (runs: Promise<{ code: string }>[]) => (await Promise.all(runs)).map((run) => run.code);

/** Ends every back-off now, as if its wait had passed (tests do not sleep). */
const endBlocks = () => pgPool().query("UPDATE sign_in_backoff SET blocked_until = now() - interval '1 second' WHERE blocked_until IS NOT NULL");

const refusals = async (limit: string) => {
  const match = new RegExp(`^tally_sign_in_refusals_total\\{limit="${limit}"\\} (\\d+)$`, "m").exec((await metricsText()).body);
  return Number(match?.[1] ?? 0);
};

describe("the back-off of an e-mail from one address", () => {
  it("holds back only the guesser's address: the owner signs in from their own at once", async () => {
    const email = await user();
    const stranger = "203.0.113.10";
    const before = await refusals("backoff");
    for (let i = 0; i < 3; i += 1) expect((await attempt(email, `wrong-${i}`, stranger)).code).toBe("UNAUTHORIZED");
    const refused = await attempt(email, PASSWORD, stranger);
    expect(refused).toEqual({ code: "TOO_MANY_REQUESTS", retryAfter: 30 });
    await expect(createCaller({ viewer: null, clientAddress: stranger }).auth.signIn({ email, password: PASSWORD })).rejects.toThrow(
      /^too many wrong passwords for this e-mail from this address; try again in (29|30) seconds$/,
    );
    for (let i = 0; i < 20; i += 1) expect((await attempt(email, `more-${i}`, stranger)).code).toBe("TOO_MANY_REQUESTS");
    expect(await refusals("backoff")).toBe(before + 22);

    expect((await attempt(email, PASSWORD, "198.51.100.7")).code).toBe("OK");
    // Another IPv6 address of the stranger's /64 is the same client; another /64 is not.
    const v6 = "2001:db8:1:2::10";
    for (let i = 0; i < 3; i += 1) expect((await attempt(email, "wrong", v6)).code).toBe("UNAUTHORIZED");
    expect((await attempt(email, PASSWORD, "2001:db8:1:2::99")).code).toBe("TOO_MANY_REQUESTS");
    expect((await attempt(email, PASSWORD, "2001:db8:1:3::10")).code).toBe("OK");
  });

  it("doubles with each further wrong password up to its cap, and a sign-in from there clears it", async () => {
    const email = await user();
    const address = "203.0.113.20";
    for (let i = 0; i < 3; i += 1) expect((await attempt(email, "wrong", address)).code).toBe("UNAUTHORIZED");
    const waits = [(await attempt(email, "wrong", address)).retryAfter];
    for (let round = 0; round < 3; round += 1) {
      await endBlocks();
      expect((await attempt(email, "wrong", address)).code).toBe("UNAUTHORIZED");
      waits.push((await attempt(email, "wrong", address)).retryAfter);
    }
    expect(waits).toEqual([30, 60, 120, 120]);

    await endBlocks();
    expect((await attempt(email, PASSWORD, address)).code).toBe("OK");
    // Three free wrong passwords again, as for an address never seen.
    const again = [];
    for (let i = 0; i < 4; i += 1) again.push((await attempt(email, "wrong", address)).code);
    expect(again).toEqual(["UNAUTHORIZED", "UNAUTHORIZED", "UNAUTHORIZED", "TOO_MANY_REQUESTS"]);
  });

  it("counts concurrent guesses one after another, so a burst gets no further than the free ones", async () => {
    const email = await user();
    const outcomes = await codes(Array.from({ length: 12 }, (_, i) => attempt(email, `burst-${i}`, "203.0.113.30")));
    expect(outcomes.filter((code) => code === "UNAUTHORIZED")).toHaveLength(3);
    expect(outcomes.filter((code) => code === "TOO_MANY_REQUESTS")).toHaveLength(9);
  });

  it("forgets a pair past its expiry: its row is deleted, and it starts with free attempts again", async () => {
    const email = await user();
    for (let i = 0; i < 4; i += 1) await attempt(email, "wrong", "203.0.113.40");
    expect((await attempt(email, "wrong", "203.0.113.40")).code).toBe("TOO_MANY_REQUESTS");
    await pgPool().query("UPDATE sign_in_backoff SET expires_at = now() - interval '1 second', blocked_until = now() + interval '1 hour'");
    await deleteExpiredBackoff(); // what each process does once a minute
    expect((await attempt(email, "wrong", "203.0.113.41")).code).toBe("UNAUTHORIZED");
    expect(Number((await pgPool().query("SELECT count(*) AS n FROM sign_in_backoff WHERE expires_at < now()")).rows[0].n)).toBe(0);
    expect((await attempt(email, PASSWORD, "203.0.113.40")).code).toBe("OK");
  });
});

describe("an e-mail guessed from many addresses", () => {
  it("slows addresses new to it, never one its owner signed in from, and counts the refusals", async () => {
    const email = await user();
    const home = "198.51.100.50";
    expect((await attempt(email, PASSWORD, home)).code).toBe("OK");
    // Six addresses, one wrong password each: no address reaches its own back-off.
    for (let i = 0; i < 6; i += 1) expect((await attempt(email, "wrong", `192.0.2.${100 + i}`)).code).toBe("UNAUTHORIZED");
    const before = await refusals("new_address");
    // From now on, new addresses share two attempts a minute for this e-mail.
    expect((await attempt(email, "wrong", "192.0.2.110")).code).toBe("UNAUTHORIZED");
    expect((await attempt(email, "wrong", "192.0.2.111")).code).toBe("UNAUTHORIZED");
    const slowed = await attempt(email, PASSWORD, "192.0.2.112");
    expect(slowed.code).toBe("TOO_MANY_REQUESTS");
    expect(slowed.retryAfter).toBeGreaterThanOrEqual(1);
    expect(slowed.retryAfter).toBeLessThanOrEqual(60);
    expect(await refusals("new_address")).toBe(before + 1);
    // The owner at home meets only home's own back-off, however the guessing goes on elsewhere.
    expect((await attempt(email, PASSWORD, home)).code).toBe("OK");
    expect((await attempt(email, "typo", home)).code).toBe("UNAUTHORIZED");
    expect((await attempt(email, PASSWORD, home)).code).toBe("OK");
    // A new address gets its turn once the minute has passed (its count dropped, as the minute would).
    await db.rateLimit.deleteMany({ where: { key: { startsWith: "sign-in-new-address" } } });
    expect((await attempt(email, PASSWORD, "192.0.2.112")).code).toBe("OK");
    // ...and is known from then on.
    expect((await attempt(email, PASSWORD, "192.0.2.112")).code).toBe("OK");
    expect((await attempt(email, PASSWORD, "192.0.2.112")).code).toBe("OK");
  });

  it("is not slowed below the threshold, and another e-mail is never slowed by this one's guessing", async () => {
    const guessed = await user();
    const other = await user();
    for (let i = 0; i < 5; i += 1) expect((await attempt(guessed, "wrong", `192.0.2.${120 + i}`)).code).toBe("UNAUTHORIZED");
    expect((await attempt(guessed, PASSWORD, "192.0.2.130")).code).toBe("OK");
    for (let i = 0; i < 8; i += 1) expect((await attempt(guessed, "wrong", `192.0.2.${140 + i}`)).code).toMatch(/UNAUTHORIZED|TOO_MANY_REQUESTS/);
    for (let i = 0; i < 4; i += 1) expect((await attempt(other, PASSWORD, `192.0.2.${150 + i}`)).code).toBe("OK");
  });
});

describe("what the limits keep", () => {
  it("holds neither e-mails nor addresses, only keyed hashes", async () => {
    const email = await user();
    await attempt(email, "wrong", "203.0.113.77");
    const keys = [
      ...(await pgPool().query<{ key: string }>("SELECT key FROM sign_in_backoff")).rows.map((row) => row.key),
      ...(await db.rateLimit.findMany({ where: { key: { startsWith: "sign-in-" } } })).map((row) => row.key),
    ];
    expect(keys.length).toBeGreaterThan(2);
    expect(keys.filter((key) => key.includes("owner") || key.includes("tally.test") || key.includes("203.0.113"))).toEqual([]);
  });
});
