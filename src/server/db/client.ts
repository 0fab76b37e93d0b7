// The one Prisma client of a process. Created on first use, so that importing a module that
// uses the database (for example during `next build`) does not need a database URL.
import { PrismaPg } from "@prisma/adapter-pg";
import { env } from "@/env";
import { PrismaClient } from "./generated/client";
import { closePgPool, requestConnectionLimits } from "./pg-pool";

export type Db = PrismaClient;

const holder = globalThis as unknown as { tallyPrisma?: PrismaClient };

export function createPrismaClient(connectionString: string, poolSize = env().DATABASE_POOL_SIZE): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max: poolSize, ...requestConnectionLimits() }) });
}

function instance(): PrismaClient {
  // globalThis keeps one client across Next.js dev reloads instead of a new pool per reload.
  holder.tallyPrisma ??= createPrismaClient(env().DATABASE_URL);
  return holder.tallyPrisma;
}

export const db: PrismaClient = new Proxy({} as PrismaClient, {
  get(_target, property) {
    const client = instance();
    const value = Reflect.get(client, property, client) as unknown;
    return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(client) : value;
  },
});

/** Closes both pools; for CLIs and tests that must let the process exit. */
export async function disconnectDb(): Promise<void> {
  await closePgPool();
  if (holder.tallyPrisma) {
    await holder.tallyPrisma.$disconnect();
    holder.tallyPrisma = undefined;
  }
}
