// `npm run catalogue -- <command>`: publishers' catalogues, which brand (advertiser) each SKU
// belongs to on a publisher (docs/conversions.md, "Whose SKU it is").
//   list <publisher>  ·  set <publisher> <sku> <advertiser> [--product-id <id>]  ·  remove <publisher> <sku>
//   conflicts [<publisher>]: SKUs and product ids that campaigns of several advertisers promote
//   on one publisher (made before the rule, or settled since by the catalogue)
import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { env, exitOnEnvError } from "@/env";
import { OPERATOR } from "@/server/accounts/actor";
import { listCatalogue, removeCatalogueEntry, setCatalogueEntry, skuConflicts } from "@/server/campaigns/publisher-catalogue";
import { TallyError } from "@/server/core/errors";
import { disconnectDb } from "@/server/db/client";

const USAGE =
  "usage: npm run catalogue -- list <publisher> | set <publisher> <sku> <advertiser> [--product-id <id>] | remove <publisher> <sku> | conflicts [<publisher>]";

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}

const { positionals, values } = parseArgs({ allowPositionals: true, options: { "product-id": { type: "string" } } });
const [command, publisherId, sku, advertiserId] = positionals;

try {
  if (command === "list" && publisherId) {
    const entries = await listCatalogue({ actor: OPERATOR, publisherId });
    if (entries.length === 0) console.log(`tally: the catalogue of ${publisherId} lists no SKUs`);
    for (const e of entries) console.log(`${e.sku}${e.productId ? `  (product id ${e.productId})` : ""}  ${e.advertiserId}  ${e.advertiserName}`);
  } else if (command === "set" && publisherId && sku && advertiserId) {
    const { entry, displaced } = await setCatalogueEntry({ actor: OPERATOR, publisherId, sku, advertiserId, productId: values["product-id"] });
    console.log(
      `tally: ${entry.sku}${entry.productId ? ` (product id ${entry.productId})` : ""} on ${entry.publisherId} belongs to ${entry.advertiserId} (${entry.advertiserName})`,
    );
    for (const d of displaced)
      console.log(
        `tally: campaign ${d.campaignId} (${d.campaignName}) of ${d.advertiserId} (${d.advertiserName}) promotes it there and is no longer credited with it`,
      );
  } else if (command === "remove" && publisherId && sku) {
    await removeCatalogueEntry({ actor: OPERATOR, publisherId, sku });
    console.log(`tally: ${sku} is no longer listed on ${publisherId}: the first campaign to promote it there holds it`);
  } else if (command === "conflicts") {
    const conflicts = await skuConflicts({ actor: OPERATOR, publisherId });
    if (conflicts.length === 0) console.log("tally: no SKU is promoted by more than one advertiser on a publisher");
    for (const c of conflicts) {
      const who = c.advertisers.map((a) => `${a.id} (${a.name})`).join(", ");
      const settled = c.ownerId
        ? `settled: the catalogue lists ${c.ownerId}, credited alone`
        : `not settled: list it with npm run catalogue -- set ${c.publisherId} <sku> <advertiser>`;
      console.log(`${c.publisherId}  ${c.kind === "sku" ? "SKU" : "product id"} ${c.value}  promoted by ${who}; ${settled}`);
    }
  } else {
    console.error(`tally: ${USAGE}`);
    process.exitCode = 2;
  }
} catch (error) {
  if (error instanceof ZodError) {
    console.error(`tally: ${error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}`);
  } else if (error instanceof TallyError) {
    console.error(`tally: ${error.message}`);
  } else {
    throw error;
  }
  process.exitCode = 1;
} finally {
  await disconnectDb();
}
