// Whether a user agent is a bot's (isbot), with each agent's answer kept. Agents repeat: a few
// hundred browser builds send most beacons, and every beacon of a page carries its browser's.
// isbot tests one large regular expression, a visible part of the collector's time under the
// ingest benchmark (bench/results.md), so each distinct agent is
// tested once, for up to 10,000 agents (boundedMemo; agents are cut to 512 characters first).
import { isbot } from "isbot";
import { boundedMemo } from "@/server/core/bounded-memo";

export const isBotAgent: (agent: string) => boolean = boundedMemo(10_000, isbot);
