// An API client's request for an address no route serves: the JSON 404 of every other route,
// naming the method and the path, with CORS on /v1 as every /v1 answer has.
import { describe, expect, it } from "vitest";
import { noSuchRouteResponse } from "./no-such-route";

describe("noSuchRouteResponse", () => {
  it("answers the shared JSON 404 with the method and the path asked for", async () => {
    const answer = noSuchRouteResponse(new Request("http://tally.test/api/no-such-route/report/nope", { method: "POST" }), ["report", "nope"]);
    expect(answer.status).toBe(404);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    expect(await answer.json()).toEqual({ error: { code: "not_found", message: "no such route: POST /report/nope" } });
  });

  it("lets a page of another origin read a /v1 one", async () => {
    const request = new Request("http://tally.test/api/no-such-route/v1/nope", { headers: { Origin: "https://shop.example" } });
    const answer = noSuchRouteResponse(request, ["v1", "nope"]);
    expect(answer.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(await answer.json()).toEqual({ error: { code: "not_found", message: "no such route: GET /v1/nope" } });
  });
});
