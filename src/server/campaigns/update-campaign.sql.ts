// Hand-written SQL of changing a campaign (update-campaign.ts). Prisma's tagged template: the id a parameter.
import type { CampaignStatus, CampaignType } from "@/server/db/generated/enums";
import type { Tx } from "./sku-ownership";

/** The campaign's row, locked FOR NO KEY UPDATE until the transaction ends. */
export async function lockCampaignRow(tx: Tx, id: string): Promise<{ advertiser_id: string; status: CampaignStatus; type: CampaignType }[]> {
  return tx.$queryRaw`SELECT advertiser_id, status::text AS status, type::text AS type FROM campaigns WHERE id = ${id} FOR NO KEY UPDATE`;
}
