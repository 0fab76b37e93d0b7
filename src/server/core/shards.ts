// Settle work is divided into a fixed number of shards by (ad, session): every decision about a
// beacon (de-duplication, token reuse) depends only on earlier events of the same ad and session,
// so one shard holds all of them and shards settle independently, each under its own lock, on any
// number of workers. The number is fixed because a shard's order lives in its cursor: changing it
// needs a migration that re-cuts settle_cursors while no worker runs.

export const SETTLE_SHARDS = 16;

/** FNV-1a (32 bits) of ad and session: cheap on the accept path, the same in every process. */
export function shardOf(adId: string, sessionId: string): number {
  const hash = fnv1a(fnv1a(fnv1a(0x811c9dc5, adId), "\u0000"), sessionId);
  return (hash >>> 0) % SETTLE_SHARDS;
}

// A function of its own rather than a closure in shardOf: tsx names each closure per call, which
// showed in the collector's profile.
function fnv1a(hash: number, text: string): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

export const ALL_SHARDS: readonly number[] = Array.from({ length: SETTLE_SHARDS }, (_, shard) => shard);
