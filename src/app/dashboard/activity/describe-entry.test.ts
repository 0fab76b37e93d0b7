import { describe, expect, it } from "vitest";
import { actorInWords, type DescribedEntry, describeEntry, howLongAgo, thingInWords } from "./describe-entry";

const entry = (fields: Partial<DescribedEntry> & Pick<DescribedEntry, "action" | "subject">): DescribedEntry => ({
  actor: "Ana Admin <ana@acme.test>",
  accountName: "Acme Coffee",
  before: null,
  after: null,
  currency: "EUR",
  ...fields,
});

describe("an activity entry as a sentence", () => {
  it("says who invited whom as what, who joined, whose role changed and who was removed", () => {
    expect(
      describeEntry(entry({ action: "user.invited", subject: "invitation of bo@x.com to Acme Coffee", after: { email: "bo@x.com", role: "viewer" } })),
    ).toBe("Ana Admin invited bo@x.com as viewer");
    expect(describeEntry(entry({ actor: "Bo <bo@x.com>", action: "user.joined", subject: "user bo@x.com", after: { role: "viewer" } }))).toBe(
      "Bo joined Acme Coffee as a viewer",
    );
    expect(describeEntry(entry({ action: "user.role.set", subject: "user bo@x.com", before: { role: "viewer" }, after: { role: "admin" } }))).toBe(
      "Ana Admin made bo@x.com an admin",
    );
    expect(describeEntry(entry({ actor: "operator", action: "user.removed", subject: "user bo@x.com", before: { email: "bo@x.com", role: "admin" } }))).toBe(
      "Tally's operator removed bo@x.com from Acme Coffee",
    );
    expect(
      describeEntry(entry({ actor: "Tally staff", action: "user.invitation.revoked", subject: "invitation of cy@x.com", before: { email: "cy@x.com" } })),
    ).toBe("Tally staff revoked the invitation of cy@x.com");
  });

  it("names the thing changed by its name in quotes, never its id, and a status change by its verb", () => {
    const spring = "campaign Spring (cmp_8d1f)";
    expect(describeEntry(entry({ action: "campaign.status.set", subject: spring, before: { status: "active" }, after: { status: "paused" } }))).toBe(
      "Ana Admin paused campaign “Spring”",
    );
    expect(describeEntry(entry({ action: "campaign.status.set", subject: spring, before: { status: "paused" }, after: { status: "active" } }))).toBe(
      "Ana Admin resumed campaign “Spring”",
    );
    expect(describeEntry(entry({ action: "campaign.status.set", subject: spring, before: { status: "draft" }, after: { status: "active" } }))).toBe(
      "Ana Admin activated campaign “Spring”",
    );
    expect(describeEntry(entry({ action: "product.created", subject: "product Beans (1 kg) (prd_77)" }))).toBe("Ana Admin added product “Beans (1 kg)”");
    expect(describeEntry(entry({ action: "api_key.revoked", subject: "API key Warehouse (key_3)" }))).toBe("Ana Admin revoked API key “Warehouse”");
  });

  it("says which negative term was added to or removed from a campaign, and how it matches", () => {
    const spring = "campaign Spring (cmp_8d1f)";
    const term = { term: "running shoes", match: "phrase" };
    expect(describeEntry(entry({ action: "campaign.negative_term.added", subject: spring, before: null, after: term }))).toBe(
      "Ana Admin added the phrase negative term “running shoes” to campaign “Spring”",
    );
    expect(describeEntry(entry({ action: "campaign.negative_term.removed", subject: spring, before: term, after: null }))).toBe(
      "Ana Admin removed the phrase negative term “running shoes” from campaign “Spring”",
    );
  });

  it("says whose time zone changed, from which to which", () => {
    const change = {
      action: "account.time_zone.set",
      subject: "time zone of Acme Coffee",
      before: { timeZone: "UTC" },
      after: { timeZone: "America/Sao_Paulo" },
    };
    expect(describeEntry(entry({ actor: "Sam Staff <sam@tally.test>", ...change }))).toBe(
      "Sam Staff changed Acme Coffee's time zone from UTC to America/Sao_Paulo",
    );
    expect(describeEntry(entry({ ...change, before: { timeZone: "America/Sao_Paulo" }, after: { timeZone: "Asia/Kathmandu" } }))).toBe(
      "Ana Admin changed Acme Coffee's time zone from America/Sao_Paulo to Asia/Kathmandu",
    );
  });

  it("says money with its currency, and the brand of a catalogue entry by name", () => {
    expect(
      describeEntry(
        entry({ action: "account.wallet.topped_up", subject: "wallet of Acme Coffee", before: { walletBalance: 100 }, after: { walletBalance: 125.5 } }),
      ),
    ).toBe("Ana Admin topped up the wallet of Acme Coffee by EUR 25.50 to EUR 125.50");
    expect(describeEntry(entry({ action: "account.daily_budget.set", subject: "daily budget of Acme Coffee", after: { dailyBudget: 30 } }))).toBe(
      "Ana Admin set the daily budget of Acme Coffee to EUR 30.00",
    );
    expect(describeEntry(entry({ action: "account.daily_budget.set", subject: "daily budget of Acme Coffee", after: { dailyBudget: null } }))).toBe(
      "Ana Admin removed the daily budget of Acme Coffee",
    );
    expect(
      describeEntry(
        entry({
          action: "catalogue.entry.set",
          subject: "SKU ACME-1 in the catalogue of Demo Market",
          after: { advertiserId: "adv_acme" },
          names: { adv_acme: "Acme Coffee" },
        }),
      ),
    ).toBe("Ana Admin listed SKU ACME-1 as Acme Coffee's in the catalogue of Demo Market");
  });

  it("still says who did what to which thing for an action it does not know", () => {
    expect(describeEntry(entry({ action: "wallet.frozen", subject: "advertiser Acme Coffee (adv_acme)" }))).toBe(
      "Ana Admin made a change (wallet.frozen) to advertiser “Acme Coffee”",
    );
    expect(thingInWords("order-signing secret of pub_x")).toBe("order-signing secret of pub_x");
    expect(actorInWords("Lee Manager <lee@tally.test>")).toBe("Lee Manager");
  });
});

describe("a moment in words", () => {
  it("reads how long ago in the largest whole unit (the minute itself: figures.tsx minuteIn)", () => {
    const at = new Date("2026-11-27T15:04:59.999Z");
    expect(howLongAgo(at, new Date("2026-11-27T15:05:20Z"))).toBe("20 seconds ago");
    expect(howLongAgo(at, new Date("2026-11-27T18:10:00Z"))).toBe("3 hours ago");
    expect(howLongAgo(at, new Date("2026-11-28T16:00:00Z"))).toBe("yesterday");
    expect(howLongAgo(at, new Date("2027-02-27T15:00:00Z"))).toBe("3 months ago");
  });
});
