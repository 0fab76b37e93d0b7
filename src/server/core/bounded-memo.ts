// A hot path's answers kept per distinct input, for inputs that repeat (user agents, client
// addresses). At `limit` inputs the memo starts over: inputs invented per request cost what they
// cost without it, and the memory stays bounded.

/** `compute`, with the answers of up to `limit` distinct keys kept. */
export function boundedMemo<V>(limit: number, compute: (key: string) => V): (key: string) => V {
  const known = new Map<string, V>();
  return (key) => {
    const kept = known.get(key);
    if (kept !== undefined) return kept;
    const answer = compute(key);
    if (known.size >= limit) known.clear();
    known.set(key, answer);
    return answer;
  };
}
