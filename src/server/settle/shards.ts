// Settle work is divided into a fixed number of shards by (ad, session): every decision about a
// beacon (de-duplication, token reuse) depends only on earlier events of the same ad and session,
// so one shard holds all of them and shards settle independently, each under its own lock, on any
// number of workers. The number is fixed because a shard's order lives in its cursor: changing it
// needs a migration that re-cuts settle_cursors while no worker runs.

export const SETTLE_SHARDS = 16;

/** FNV-1a (32 bits) of ad and session: cheap on the accept path, the same in every process. */
export function shardOf(adId: string, sessionId: string): number {
  let hash = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193);
    }
  };
  mix(adId);
  mix("\u0000");
  mix(sessionId);
  return (hash >>> 0) % SETTLE_SHARDS;
}

export const ALL_SHARDS: readonly number[] = Array.from({ length: SETTLE_SHARDS }, (_, shard) => shard);
