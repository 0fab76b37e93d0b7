import { isbot } from "isbot";
import { describe, expect, it } from "vitest";
import { isBotAgent } from "./bot-agents";

const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "curl/8.5.0",
  "python-requests/2.32.3",
];

describe("isBotAgent", () => {
  it("answers as isbot does, asked once or many times", () => {
    for (let round = 0; round < 3; round += 1) {
      for (const agent of AGENTS) expect(isBotAgent(agent)).toBe(isbot(agent));
    }
    expect(AGENTS.map(isBotAgent)).toEqual([false, false, true, true, true]);
  });

  it("keeps answering right past the memo's limit, with agents invented per request", () => {
    for (let n = 0; n < 25_000; n += 1) {
      const agent = n % 2 === 0 ? `Mozilla/5.0 Chrome/${n}.0` : `crawler-${n}/1.0 (+https://crawler.example/bot)`;
      expect(isBotAgent(agent)).toBe(isbot(agent));
    }
  });
});
