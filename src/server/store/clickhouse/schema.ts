// How a ClickHouse migration names its tables and engines, for one server or a cluster: on one
// server a table is what it says; with CLICKHOUSE_CLUSTER each table is `<name>_local` on every
// node (a Replicated engine, ON CLUSTER) behind a Distributed table `<name>` that reads and writes
// through the cluster. Migrations (migrations/) write their statements against this, so both
// schemas come from one text.

export interface SchemaOptions {
  /** CLICKHOUSE_CLUSTER, or undefined for one server. */
  cluster?: string | undefined;
  /** Inserts each table remembers the deduplication token of (CLICKHOUSE_DEDUPLICATION_WINDOW). */
  deduplicationWindow: number;
}

export interface Schema {
  /** ` ON CLUSTER <name>`, or nothing. */
  onCluster: string;
  /** The table that holds the rows on this node: `name`, or `name_local` on a cluster. */
  local(name: string): string;
  /**
   * A MergeTree family engine (`MergeTree`, `AggregatingMergeTree`, ...) for the table `name`:
   * Replicated on a cluster, with the path every replica of a shard shares.
   */
  engine(family: string, name: string): string;
  /** The SETTINGS of every table that takes inserts with a deduplication token (materialized views' targets too). */
  deduplication: string;
  /**
   * On a cluster, the Distributed table `name` over `name_local` sharded by `shardingKey`; on one
   * server, nothing.
   */
  distributed(name: string, shardingKey: string): string[];
  /**
   * Every table that has `name`'s columns, for a statement that changes them: `name` on one
   * server; `name_local` and the Distributed `name` (which keeps a copy of its columns) on a cluster.
   */
  withColumns(name: string): string[];
}

export function schemaOf(options: SchemaOptions): Schema {
  const { cluster, deduplicationWindow } = options;
  return {
    onCluster: cluster ? ` ON CLUSTER ${cluster}` : "",
    local: (name) => (cluster ? `${name}_local` : name),
    engine: (family, name) => (cluster ? `Replicated${family}('/clickhouse/tables/{shard}/{database}/${name}_local', '{replica}')` : family),
    // Both settings: a replicated table keeps the tokens in Keeper, a plain one in its own log.
    deduplication: cluster ? `replicated_deduplication_window = ${deduplicationWindow}` : `non_replicated_deduplication_window = ${deduplicationWindow}`,
    distributed: (name, shardingKey) =>
      cluster
        ? [
            `CREATE TABLE IF NOT EXISTS ${name} ON CLUSTER ${cluster} AS ${name}_local
               ENGINE = Distributed(${cluster}, currentDatabase(), ${name}_local, ${shardingKey})`,
          ]
        : [],
    withColumns: (name) => (cluster ? [`${name}_local`, name] : [name]),
  };
}
