import { readFileSync } from "node:fs";
import { z } from "zod";
import type { NetworkDefinition } from "./types.ts";

const tokenSchema = z.object({
  symbol: z.string().min(1).max(16),
  name: z.string().min(1),
  address: z.string().min(1),
  decimals: z.number().int().min(0).max(36),
  /** Solana only: the mint's program (default the classic Token program). */
  tokenProgram: z.enum(["spl-token", "token-2022"]).optional(),
});

/**
 * Extra networks an operator (or the dev stack, for its anvil chains) adds to the
 * catalogue. A network with the same shortName replaces the catalogue's entry.
 */
export const networkFileSchema = z.object({
  networks: z.array(
    z.object({
      name: z.string().min(1),
      shortName: z.string().regex(/^[a-z0-9-]+$/, "lowercase letters, digits and dashes"),
      chainId: z.union([z.string().min(1), z.number().int().positive()]).transform(String),
      // One of the registered network types (checked in `buildNetworks`).
      type: z.string().min(1),
      color: z.string().default("#6B7280"),
      explorerUrl: z.string().url().nullable().default(null),
      isTestnet: z.boolean(),
      isLocal: z.boolean().default(false),
      requiredConfirmations: z.number().int().min(0).max(10_000),
      /** Blocks after which a block is final; left out: the node's `finalized` block is asked. */
      finalityBlocks: z.number().int().min(1).max(100_000).optional(),
      tokens: z.array(tokenSchema),
      // One URL or a comma-separated list, each checked as the RPC_URL_* variables are (config/networks.ts).
      rpcUrl: z.string().min(1).optional(),
      settlementContract: z.string().optional(),
      forwarderFactory: z.string().optional(),
      wsUrl: z.string().min(1).optional(),
    }),
  ),
});

export type NetworksFile = z.infer<typeof networkFileSchema>;
export type FileNetwork = NetworksFile["networks"][number];
export type FileNetworkInput = z.input<typeof networkFileSchema>["networks"][number];

/** Reads and validates a networks file; errors name the file and the offending path. */
export function readNetworksFile(path: string): FileNetwork[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (cause) {
    throw new Error(`NETWORKS_FILE: cannot read ${path}: ${(cause as Error).message}`);
  }
  const parsed = networkFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`NETWORKS_FILE: ${path}: ${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data.networks;
}

export const toDefinition = (n: FileNetwork): NetworkDefinition => ({
  name: n.name,
  shortName: n.shortName,
  chainId: n.chainId,
  type: n.type as NetworkDefinition["type"],
  color: n.color,
  explorerUrl: n.explorerUrl,
  isTestnet: n.isTestnet,
  isLocal: n.isLocal,
  requiredConfirmations: n.requiredConfirmations,
  finalityBlocks: n.finalityBlocks ?? null,
  tokens: n.tokens,
});
