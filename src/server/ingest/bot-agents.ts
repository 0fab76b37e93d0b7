// Whether a user agent is a bot's (isbot), with each agent's answer kept. Agents repeat: a few
// hundred browser builds send most beacons, and every beacon of a page carries its browser's.
// isbot tests one large regular expression: 1.3 µs a browser's agent, and 3.3% of the collector's
// time under the ingest benchmark (bench/README.md, "Browser headers"), so each distinct agent is
// tested once. At KNOWN_AGENTS_LIMIT agents the memo starts over: agents invented per request cost what
// they cost without it, and the memory stays bounded (agents are cut to 512 characters first).
import { isbot } from "isbot";

const KNOWN_AGENTS_LIMIT = 10_000;

const known = new Map<string, boolean>();

export function isBotAgent(agent: string): boolean {
  const answer = known.get(agent);
  if (answer !== undefined) return answer;
  const tested = isbot(agent);
  if (known.size >= KNOWN_AGENTS_LIMIT) known.clear();
  known.set(agent, tested);
  return tested;
}
