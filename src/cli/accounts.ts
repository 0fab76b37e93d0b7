// `npm run accounts -- <command>`: an account's settings, as the operator (docs/time-zones.md).
//   time-zone --account <id> --zone <Area/City>   the zone the account reads, budgets and exports in
//   show --account <id>                           the account's kind, currency and zone (its offset now)
import { setAccountTimeZone } from "@/server/accounts/account-time-zone";
import { OPERATOR } from "@/server/accounts/actor";
import { getAccount } from "@/server/accounts/get-account";
import { offsetLabel, UTC } from "@/server/core/time-zones";
import { operatorArguments, runOperatorCommand } from "./operator-command";

const USAGE = "usage: npm run accounts -- time-zone --account <id> --zone <Area/City> | show --account <id>";

const { positionals, values } = operatorArguments({
  account: { type: "string" },
  zone: { type: "string" },
});
const [command] = positionals;
const minute = (value: Date) => `${value.toISOString().slice(0, 16).replace("T", " ")} UTC`;

await runOperatorCommand(USAGE, async () => {
  if (command === "time-zone" && values.account && values.zone) {
    const set = await setAccountTimeZone({ actor: OPERATOR, accountId: values.account, timeZone: values.zone });
    const account = `${set.accountName} (${set.accountId})`;
    const zone = `${set.timeZone}, ${set.offset} now`;
    console.log(set.changed ? `tally: ${account}: time zone changed from ${set.previous} to ${zone}` : `tally: ${account} is already in ${zone}`);
    if (set.timeZone !== UTC && set.since.getTime() > Date.now()) {
      console.log(
        `tally: reports hold days in ${set.timeZone} from ${minute(set.since)} on; days before then read as UTC days until upkeep fills in those still held raw`,
      );
    }
  } else if (command === "show" && values.account) {
    const account = await getAccount({ actor: OPERATOR, id: values.account });
    console.log(`${account.id}  ${account.name}  ${account.kind}  ${account.currency}  ${account.timeZone} (${offsetLabel(new Date(), account.timeZone)} now)`);
  } else return false;
  return true;
});
