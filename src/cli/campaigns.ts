// `npm run campaigns -- <command>`: a campaign's settings, as the operator (docs/ingest.md, "Negative terms").
//   negative-term add|remove --campaign <id> --term <term> --match exact|phrase
//   negative-term list --campaign <id>
import { OPERATOR } from "@/server/accounts/actor";
import { addNegativeTerm, listNegativeTerms, NEGATIVE_MATCHES, removeNegativeTerm } from "@/server/campaigns/negative-terms";
import { operatorArguments, runOperatorCommand } from "./operator-command";

const USAGE = "usage: npm run campaigns -- negative-term add|remove --campaign <id> --term <term> --match exact|phrase | negative-term list --campaign <id>";

const { positionals, values } = operatorArguments({
  campaign: { type: "string" },
  term: { type: "string" },
  match: { type: "string" },
});
const [command, verb] = positionals;
const campaignId = values.campaign;
const match = NEGATIVE_MATCHES.find((name) => name === values.match);
const quoted = (term: string) => JSON.stringify(term);

await runOperatorCommand(USAGE, async () => {
  if (command !== "negative-term" || !campaignId) return false;
  if (verb === "list") {
    const terms = await listNegativeTerms({ actor: OPERATOR, campaignId });
    if (terms.length === 0) console.log(`tally: campaign ${campaignId} has no negative terms`);
    for (const t of terms) console.log(`${t.match}\t${quoted(t.term)}\tadded ${t.createdAt.toISOString()} by ${t.createdBy}`);
  } else if (verb === "add" && values.term !== undefined && match) {
    const added = await addNegativeTerm({ actor: OPERATOR, campaignId, term: values.term, match });
    console.log(
      added.added
        ? `tally: campaign ${campaignId} is no longer served for search terms ${match === "exact" ? "equal to" : "holding the phrase"} ${quoted(added.term)}`
        : `tally: campaign ${campaignId} already has the ${match} negative term ${quoted(added.term)}`,
    );
  } else if (verb === "remove" && values.term !== undefined && match) {
    const removed = await removeNegativeTerm({ actor: OPERATOR, campaignId, term: values.term, match });
    console.log(`tally: campaign ${campaignId} no longer has the ${match} negative term ${quoted(removed.term)}`);
  } else return false;
  return true;
});
