// `npm run db:seed`: seeds the demo data into DATABASE_URL (once; a seeded database is left alone).
import { env, exitOnEnvError } from "@/env";
import { disconnectDb } from "@/server/db/client";
import { seedDemoData } from "../../prisma/seed";

try {
  env();
} catch (error) {
  exitOnEnvError(error);
}
try {
  await seedDemoData((line) => console.log(`tally: ${line}`));
} finally {
  await disconnectDb();
}
