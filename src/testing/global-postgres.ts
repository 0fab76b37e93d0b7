// Vitest global setup for integration tests: a throwaway embedded Postgres (or the server of
// TEST_DATABASE_URL), with a template database that has every migration applied. Each test file
// clones the template (database-per-file.ts), so files never see each other's rows.
import type { TestProject } from "vitest/node";
import { dropDatabase, ensureDatabase, freePort, keepExitCode, startLocalPostgres, temporaryDataDir } from "@/cli/local/embedded-postgres";
import { migrateDeploy } from "@/cli/local/prisma-cli";

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  // Failing tests must fail the run: embedded-postgres would otherwise exit 0 at the end.
  keepExitCode();
  const external = process.env.TEST_DATABASE_URL;
  const server = external ? undefined : await startLocalPostgres({ dataDir: temporaryDataDir("test"), port: await freePort(), ephemeral: true });
  const adminUrl = external ?? server!.adminUrl;
  const template = `tally_template_${process.pid}`;
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;

  try {
    await dropDatabase(adminUrl, template);
    await ensureDatabase(adminUrl, template);
    await migrateDeploy(templateUrl.toString());
  } catch (error) {
    // Vitest runs no teardown when setup fails: stop the server here, or it outlives the run.
    await server?.stop();
    throw error;
  }

  project.provide("pgAdminUrl", adminUrl);
  project.provide("pgTemplate", template);

  return async () => {
    await dropDatabase(adminUrl, template).catch(() => {});
    await server?.stop();
  };
}
