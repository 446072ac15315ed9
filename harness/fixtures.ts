import { sql } from "drizzle-orm";
import { Elysia } from "elysia";
import { createServer } from "node:net";
import { errorsPlugin } from "../api/plugins/errors.ts";
import type { FileNetwork } from "../config/index.ts";
import { createLogger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";

/** The first contract anvil's account 0 deploys (nonce 0): where the dev stack's test USDC lives. */
export const ANVIL_USDC = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

/** A local anvil chain as a networks-file entry, every field spelled out. */
export function anvilNetwork(rpcUrl: string, overrides: Partial<FileNetwork> = {}): FileNetwork {
  return {
    name: "Anvil",
    shortName: "anvil",
    chainId: "31337",
    type: "evm",
    color: "#6B7280",
    explorerUrl: null,
    isTestnet: true,
    isLocal: true,
    requiredConfirmations: 3,
    tokens: [{ symbol: "USDC", name: "USD Coin", address: ANVIL_USDC, decimals: 6 }],
    rpcUrl,
    ...overrides,
  };
}

/**
 * A Ponder 0.16 checkpoint string (ponder/src/utils/checkpoint.ts): 10 digits of block
 * timestamp, 16 of chain id, 16 of block number, 16 of transaction index, 1 of event
 * type, 16 of event index; 75 characters.
 */
export function encodePonderCheckpoint(c: {
  blockTimestamp: bigint | number;
  chainId: bigint | number;
  blockNumber: bigint | number;
  transactionIndex?: bigint | number;
  eventType?: number;
  eventIndex?: bigint | number;
}): string {
  const pad = (v: bigint | number, n: number) => v.toString().padStart(n, "0");
  const encoded =
    pad(c.blockTimestamp, 10) +
    pad(c.chainId, 16) +
    pad(c.blockNumber, 16) +
    pad(c.transactionIndex ?? 0, 16) +
    String(c.eventType ?? 0) +
    pad(c.eventIndex ?? 0, 16);
  if (encoded.length !== 75) throw new Error(`checkpoint has ${encoded.length} characters, expected 75: ${encoded}`);
  return encoded;
}

/** Creates the indexer's schema and Ponder 0.16's `_ponder_checkpoint` table, empty (as right after the indexer starts). */
export async function createPonderCheckpointTable(db: Db, schema: string): Promise<void> {
  await db.execute(sql`create schema if not exists ${sql.identifier(schema)}`);
  await db.execute(sql`
    create table if not exists ${sql.identifier(schema)}."_ponder_checkpoint" (
      chain_name text primary key,
      chain_id bigint not null,
      safe_checkpoint varchar(75) not null,
      latest_checkpoint varchar(75) not null,
      finalized_checkpoint varchar(75) not null
    )`);
}

/** Records that the indexer has committed `blockNumber` of a chain (all three checkpoints at that block), stamped `blockTime` (default now). */
export async function setIndexedBlock(
  db: Db,
  schema: string,
  chain: { name: string; chainId: bigint | number },
  blockNumber: bigint | number,
  blockTime: Date = new Date(),
): Promise<void> {
  const checkpoint = encodePonderCheckpoint({
    blockTimestamp: Math.floor(blockTime.getTime() / 1000),
    chainId: chain.chainId,
    blockNumber,
    transactionIndex: 9_999_999_999_999_999n,
    eventType: 9,
    eventIndex: 9_999_999_999_999_999n,
  });
  await db.execute(sql`
    insert into ${sql.identifier(schema)}."_ponder_checkpoint"
      (chain_name, chain_id, safe_checkpoint, latest_checkpoint, finalized_checkpoint)
    values (${chain.name}, ${String(chain.chainId)}, ${checkpoint}, ${checkpoint}, ${checkpoint})
    on conflict (chain_name) do update set
      safe_checkpoint = excluded.safe_checkpoint,
      latest_checkpoint = excluded.latest_checkpoint,
      finalized_checkpoint = excluded.finalized_checkpoint`);
}

/**
 * An RPC URL that is certainly dead: a port this process holds open and whose connections are
 * reset at once. (A fixed "unused" port such as 1 is not safe: anything may listen there.)
 */
export async function startDeadRpc(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** One JSON-RPC call to a node; throws on a JSON-RPC error. */
export async function rpc<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export const blockNumber = async (rpcUrl: string) => BigInt(await rpc<string>(rpcUrl, "eth_blockNumber"));

/** Mines `count` empty blocks on anvil. */
export const mineBlocks = (rpcUrl: string, count: number) => rpc(rpcUrl, "anvil_mine", [`0x${count.toString(16)}`]);

/** A bare Elysia app with the production error mapping, for mounting test-only routes. */
export const appWithErrors = () => new Elysia().use(errorsPlugin(createLogger({ level: "silent" })));

/** `app.handle` on a `http://localhost` request, answering status, headers and parsed body. */
export async function call(
  app: { handle: (request: Request) => Response | Promise<Response> },
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await app.handle(
    new Request(`http://localhost${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
      body: init.body,
    }),
  );
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, body };
}
