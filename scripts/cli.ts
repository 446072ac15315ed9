import { loadConfigOrExit } from "../plugins/config.ts";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { setVariables, type Config } from "../config/index.ts";
import { createDb } from "../db/client.ts";
import { runMigrations } from "../db/migrate.ts";
import { createLogger } from "../config/logger.ts";
import { CommandFailedError, commandOf, commands, UsageError, usage } from "./cli/commands.ts";
import { recover } from "./cli/recover.ts";

const { positionals, values } = parsedArgs();
const command = commandOrExit();
if (!command || values.help) {
  console.log(usage);
  process.exit(command || values.help ? 0 : 2);
}
const given = loadConfigOrExit();
const sandbox = given.databaseUrl ? undefined : sandboxStack(given);
const databaseUrl = given.databaseUrl ?? sandbox?.databaseUrl;
// `recover` is for when the database is lost: it runs without one (and says so).
if (!databaseUrl && command === commands.recover) await runWithoutDatabase(given);
if (!databaseUrl) {
  console.error("DATABASE_URL: required (or run `npm start` first: the CLI then uses the sandbox's database)");
  process.exit(1);
}
// The sandbox's chains come with its database (its wallets, replays and transfers are on them), unless NETWORKS_FILE names others.
const config = sandbox && !setVariables(process.env).NETWORKS_FILE && existsSync(sandbox.networksFile) ? loadConfigOrExit({ ...process.env, NETWORKS_FILE: sandbox.networksFile }) : given;
await runMigrations(databaseUrl).catch((error: Error) => {
  console.error(
    sandbox
      ? `The sandbox's database (${sandbox.file}) does not answer: is \`npm start\` running? Or set DATABASE_URL. (${error.message.split("\n")[0]})`
      : `DATABASE_URL: could not reach the database: ${error.message.split("\n")[0]}${command === commands.recover ? " (to recover without it, unset DATABASE_URL)" : ""}`,
  );
  process.exit(1);
});
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
// A chain with several RPC URLs is ranked by viem on a timer that would keep the process alive.
if (config.networks.some((n) => n.rpcUrls.length > 1)) process.exit();

/** Runs `recover` with no database (destinations from --destination only), then exits. */
async function runWithoutDatabase(config: Config): Promise<never> {
  console.error("No database: recovering from the secrets and the chain alone.");
  try {
    console.log(await recover({ config, db: null, logger: createLogger({ level: config.logLevel, name: "cli", stderr: true }) }, values));
    process.exit(0);
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof CommandFailedError)) throw error;
    console.error(error.message);
    process.exit(error instanceof UsageError ? 2 : 1);
  }
}

/** Outside production, the running sandbox's database and chains (from its dev-stack.json, beside its networks file). */
function sandboxStack(config: Config): { databaseUrl: string; networksFile: string; file: string } | undefined {
  if (config.appEnv === "production") return undefined;
  const dir = resolve(import.meta.dir, "..", config.dataDir);
  const file = join(dir, "dev-stack.json");
  try {
    const { databaseUrl } = JSON.parse(readFileSync(file, "utf8")) as { databaseUrl?: unknown };
    return typeof databaseUrl === "string" ? { databaseUrl, networksFile: join(dir, "networks.local.json"), file } : undefined;
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
        destination: { type: "string" },
        deposits: { type: "string" },
        "from-index": { type: "string" },
        gap: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    console.error((error as Error).message);
    console.error(usage);
    process.exit(2);
  }
}
