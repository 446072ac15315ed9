import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfigOrExit, type Config } from "../config/index.ts";
import { createDb } from "../db/client.ts";
import { runMigrations } from "../db/migrate.ts";
import { createLogger } from "../config/logger.ts";
import { CommandFailedError, commandOf, commands, UsageError, usage } from "./cli/commands.ts";

const { positionals, values } = parsedArgs();
const command = commandOrExit();
if (!command || values.help) {
  console.log(usage);
  process.exit(command || values.help ? 0 : 2);
}
const config = loadConfigOrExit();
const databaseUrl = config.databaseUrl ?? sandboxDatabaseUrl(config);
if (!databaseUrl) {
  console.error("DATABASE_URL: required (or run `npm start` first: the CLI then uses the sandbox's database)");
  process.exit(1);
}
await runMigrations(databaseUrl);
const handle = createDb(databaseUrl, { max: 1 });
try {
  console.log(await command({ db: handle.db, config, databaseUrl, logger: createLogger({ level: config.logLevel, name: "cli", stderr: true }) }, values));
} catch (error) {
  if (!(error instanceof UsageError || error instanceof CommandFailedError)) throw error;
  console.error(error.message);
  process.exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  await handle.close();
}

/** Outside production, the running sandbox's database (from its dev-stack.json). */
function sandboxDatabaseUrl(config: Config): string | undefined {
  if (config.appEnv === "production") return undefined;
  try {
    return JSON.parse(readFileSync(resolve(import.meta.dir, "..", config.dataDir, "dev-stack.json"), "utf8")).databaseUrl;
  } catch {
    return undefined;
  }
}

/** The command named (undefined: none), or exit 2 with what was wrong: a stray word, or a flag it does not read. */
function commandOrExit() {
  try {
    const name = commandOf(positionals, values);
    return name && commands[name];
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}

/** The command line; an unknown flag or a missing value prints the usage and exits 2. */
function parsedArgs() {
  try {
    return parseArgs({
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: "string" },
        email: { type: "string" },
        currency: { type: "string" },
        naira: { type: "boolean" },
        merchant: { type: "string" },
        kind: { type: "string" },
        mode: { type: "string" },
        network: { type: "string" },
        address: { type: "string" },
        url: { type: "string" },
        events: { type: "string" },
        origins: { type: "string" },
        id: { type: "string" },
        "dry-run": { type: "boolean" },
        from: { type: "string" },
        to: { type: "string" },
        "from-slot": { type: "string" },
        "to-slot": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    console.error((error as Error).message);
    console.error(usage);
    process.exit(2);
  }
}
