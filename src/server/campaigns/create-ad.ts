import { db } from "@/server/db/client";
import { newId } from "@/server/db/ids";
import { type TCreateAdInput, ZCreateAdInput } from "./ad-input";

export { type TCreateAdInput, ZCreateAdInput } from "./ad-input";

export async function createAd(input: TCreateAdInput) {
  const data = ZCreateAdInput.parse(input);
  return db.ad.create({
    data: {
      id: data.id ?? newId("ad"),
      campaignId: data.campaignId,
      name: data.name,
      type: data.type,
      size: data.size,
      mediaUrl: data.mediaUrl,
      destinationUrl: data.destinationUrl,
      status: data.status,
      products: { create: data.productRefs.map((productRef) => ({ productRef })) },
    },
  });
}
