
import { loadConfigOrExit } from "../plugins/config.ts";
import { runMigrations } from "../db/migrate.ts";

const config = loadConfigOrExit();
if (!config.databaseUrl) {
  console.error("DATABASE_URL: required to migrate");
  process.exit(1);
}
await runMigrations(config.databaseUrl, { viewsSchema: config.indexer.viewsSchema, networks: config.networks });
console.log("migrations applied");
