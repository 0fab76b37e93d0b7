import type { Metadata } from "next";
import { CampaignPage } from "./campaign-page";

export const metadata: Metadata = { title: "Campaign" };

export default async function Campaign({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <CampaignPage id={id} />;
}
