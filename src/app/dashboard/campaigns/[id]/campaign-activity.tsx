"use client";
// A campaign's own activity on its page: changes to its settings, status, windows and ads, newest first.
import { ActivityList } from "../../activity/activity-list";

export function CampaignActivity({ campaignId }: { campaignId: string }) {
  return (
    <section className="panel" aria-label="Campaign activity">
      <h2>Activity</h2>
      <ActivityList label="Campaign activity" filter={{ campaignId }} pageSize={20} />
    </section>
  );
}
