// Prints the first row of the query in argv[2], run on CLICKHOUSE_URL, as JSON.
import { closeClickhouse, selectRows } from "@/server/store/clickhouse/client";

const [row] = await selectRows(process.argv[2]!);
console.log(JSON.stringify(row));
await closeClickhouse();
