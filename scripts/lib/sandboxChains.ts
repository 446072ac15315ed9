import { existsSync } from "node:fs";
import type { FileNetwork } from "../../config/index.ts";
import { fromProjectRoot } from "../../config/projectRoot.ts";
import { plugins } from "../../plugins/index.ts";
import type { RailSandbox } from "../../rails/registration.ts";

/**
 * The registered rails' sandboxes, in registration order: `rails/<name>/sandbox.ts` where a
 * rail has one. Found by convention, as drizzle-kit finds each rail's `tables.ts`: they import
 * devchain, so no product module imports them (`scripts/check-imports.ts`) and the roles'
 * bundle never holds them.
 */
export async function railSandboxes(): Promise<RailSandbox[]> {
  const paths = plugins.map((p) => fromProjectRoot("rails", p.name, "sandbox.ts")).filter((path) => existsSync(path));
  return Promise.all(paths.map(async (path) => ((await import(path)) as { sandbox: RailSandbox }).sandbox));
}

/** The variables every rail's sandbox sets (its well-known test keys), without starting a chain. */
export async function sandboxChainEnv(): Promise<Record<string, string>> {
  return Object.assign({}, ...(await railSandboxes()).map((s) => s.env));
}

export type LocalChains = {
  networks: FileNetwork[];
  /** The sandbox merchant's settlement wallet on each local network, by short name. */
  merchantWallets: Record<string, string>;
  /** The variables the rails' sandboxes set (`sandboxEnv.ts` puts the operator's own over them). */
  env: Record<string, string>;
  /** What `.data/dev-stack.json` tells of the rails' sandbox accounts. */
  devStack: Record<string, string>;
  stop: () => Promise<void>;
};

/** Every rail's local chains (two anvils, a local Solana chain), one rail after the other; those started are stopped if one fails. */
export async function startLocalChains(): Promise<LocalChains> {
  const sandboxes = await railSandboxes();
  const running: Array<Awaited<ReturnType<RailSandbox["start"]>>> = [];
  const stop = async () => void (await Promise.all(running.map((r) => r.stop())));
  try {
    for (const sandbox of sandboxes) running.push(await sandbox.start());
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    networks: running.flatMap((r) => r.networks),
    merchantWallets: Object.assign({}, ...running.map((r) => r.merchantWallets)),
    env: Object.assign({}, ...sandboxes.map((s) => s.env)),
    devStack: Object.assign({}, ...running.map((r) => r.devStack)),
    stop,
  };
}
