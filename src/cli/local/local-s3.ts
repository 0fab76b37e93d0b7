// A real S3 API on this machine (s3rver, files in a directory): the demo destination of
// `npm run dev` and the bucket of the export tests. The exporter does not know it is local: it
// talks to it with the same S3 client, path-style, with any credentials.
import { mkdir } from "node:fs/promises";
import S3rver from "s3rver";

export interface LocalS3 {
  endpoint: string;
  port: number;
  directory: string;
  stop(): Promise<void>;
}

/** Starts s3rver on 127.0.0.1 (port 0: any free port) with the given buckets. */
export async function startLocalS3(options: { directory: string; port?: number; buckets?: string[] }): Promise<LocalS3> {
  await mkdir(options.directory, { recursive: true });
  const server = new S3rver({
    address: "127.0.0.1",
    port: options.port ?? 0,
    silent: true,
    directory: options.directory,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name })),
  });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    directory: options.directory,
    stop: async () => {
      // Clients keep connections alive; close them, or close() waits for them.
      server.httpServer?.closeAllConnections();
      await server.close();
    },
  };
}

/** Local S3 credentials: s3rver accepts any; these name what they are. */
export const LOCAL_S3_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;
