// A daily budget that one bid already exceeds: the campaign's first click (CPC), or its first
// thousand impressions (CPM), would take the whole day's budget. Allowed (a small test budget is a
// choice), but said beside the budget in the form before saving and on the campaign's page. Pure,
// so the form and the page say the same thing.

/** The warning in words, or null when the budget covers at least one bid (or there is none). */
export function budgetBelowBid(campaign: { bidModel: string; bid: number; dailyBudget: number | null | undefined }): string | null {
  const { bidModel, bid, dailyBudget } = campaign;
  if (dailyBudget === null || dailyBudget === undefined || !Number.isFinite(bid) || !Number.isFinite(dailyBudget) || bid <= 0) return null;
  if (bidModel === "cpc" && bid > dailyBudget) {
    return "The daily budget is less than one click's bid: the campaign stops for the day at its first click, or serves nothing.";
  }
  if (bidModel === "cpm" && bid / 1000 > dailyBudget) {
    return "The daily budget is less than one impression's cost (the bid per 1,000 ÷ 1,000): the campaign stops for the day at its first impression.";
  }
  return null;
}
