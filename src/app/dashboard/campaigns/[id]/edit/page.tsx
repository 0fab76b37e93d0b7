import type { Metadata } from "next";
import { EditCampaign } from "./edit-campaign";

export const metadata: Metadata = { title: "Edit campaign" };

export default async function EditCampaignPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <EditCampaign id={id} />;
}
