import { describe, expect, it } from "vitest";
import { clientCredentialsOf } from "./oauth-client-auth";

const basic = (pair: string) => `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;

describe("a token request's client credentials", () => {
  it("are read from HTTP Basic, each half form-urlencoded (RFC 6749 §2.3.1)", () => {
    expect(clientCredentialsOf(basic("tlc_one:tls_two"), {})).toEqual({ found: "credentials", via: "basic", clientId: "tlc_one", clientSecret: "tls_two" });
    // A colon, a plus and a percent inside the secret arrive encoded; "+" is a space.
    expect(clientCredentialsOf(basic("tlc_one:a%3Ab%2Bc+d%25"), {})).toMatchObject({ clientSecret: "a:b+c d%" });
    expect(clientCredentialsOf(`basic  ${Buffer.from("id:secret").toString("base64")}`, {})).toMatchObject({ clientId: "id", clientSecret: "secret" });
  });

  it("are read from the form's client_id and client_secret", () => {
    expect(clientCredentialsOf(null, { client_id: "tlc_one", client_secret: "tls_two" })).toEqual({
      found: "credentials",
      via: "body",
      clientId: "tlc_one",
      clientSecret: "tls_two",
    });
  });

  it("refuse both ways at once, half of the body's pair, and Basic that is not id:secret", () => {
    expect(clientCredentialsOf(basic("a:b"), { client_id: "a" })).toEqual({ found: "both" });
    expect(clientCredentialsOf(basic("a:b"), { client_secret: "b" })).toEqual({ found: "both" });
    expect(clientCredentialsOf(null, { client_id: "a" })).toEqual({ found: "none", basicTried: false });
    expect(clientCredentialsOf(null, {})).toEqual({ found: "none", basicTried: false });
    for (const header of [basic("no-colon"), basic(":secret"), basic("id:"), basic("id:%zz"), "Basic !!!", "Bearer tat_x", ""]) {
      expect(clientCredentialsOf(header, {}), header).toEqual({ found: "unreadable", basicTried: true });
    }
  });
});
