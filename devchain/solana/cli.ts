/**
 * The local Solana chain on its own, for a wallet, a script or another project:
 * `bun solana/cli.ts --port 8899` (from devchain/), like `solana-test-validator`.
 * Prints one JSON line ({rpcUrl, wsUrl, genesisHash}) once it answers, then serves until
 * SIGINT/SIGTERM.
 */
import { LAMPORTS_PER_SOL, PublicKey } from "@solana/web3.js";
import { CliOptionError, cliUsage, parseCliOptions } from "./parseCliOptions.ts";
import { startSolanaDevChain } from "./startSolanaDevChain.ts";

async function main(): Promise<void> {
  const { airdrop, ...options } = parseCliOptions(process.argv.slice(2));
  // Addresses are checked before the chain starts: a typo fails fast.
  const recipients = airdrop.map((address) => {
    try {
      return new PublicKey(address);
    } catch {
      throw new CliOptionError(`--airdrop must be a base58 Solana address, got "${address}"`);
    }
  });
  const chain = await startSolanaDevChain(options);
  for (const recipient of recipients) await chain.airdrop(recipient, 10n * BigInt(LAMPORTS_PER_SOL));
  console.log(JSON.stringify({ rpcUrl: chain.rpcUrl, wsUrl: chain.wsUrl, genesisHash: chain.ledger.clock.genesisHash }));
  const stop = () => void chain.stop().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof CliOptionError ? `${error.message}\n${cliUsage}` : error);
  process.exit(error instanceof CliOptionError ? 2 : 1);
});
