import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAddress, type Hex } from "viem";
import { type Config } from "../../../../../config/index.ts";
import { createLogger } from "../../../../../config/logger.ts";
import { createDb, type DbHandle } from "../../../../../db/client.ts";
import { findRequest, insertRequest, planTransfer, recordDeposit, transfersOf } from "../../../../../rails/bridge/local/books.ts";
import { relayerTick } from "../../../../../rails/bridge/local/relayer/relayerTick.ts";
import { signTransfer } from "../../../../../rails/bridge/local/relayer/sendTransfer.ts";
import { relayerAddress, relayerKey, startBridgeChains, type BridgeChains } from "../../../../../harness/bridgeChains.ts";
import { createTestDatabase, type TestDatabase } from "../../../../../harness/database.ts";
import { merchantWallet } from "../../../../../harness/paymentChain.ts";
import { buildConfig } from "../../../../../plugins/config.ts";

/**
 * The local relayer signs each planned transfer once. A relayer whose lock session dropped
 * (a database restart) kept running while a second one took the lock: both signed the same
 * planned fill, with consecutive nonces, and both were mined (the merchant paid twice from
 * the relayer's liquidity). Only the relayer whose record of the signed bytes lands broadcasts.
 */
let chains: BridgeChains;
let database: TestDatabase;
let handle: DbHandle;
let config: Config;
beforeAll(async () => {
  [chains, database] = await Promise.all([startBridgeChains(), createTestDatabase()]);
  handle = createDb(database.url, { max: 4 });
  config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, NETWORKS_FILE: chains.networksFile, BRIDGE_ADAPTER: "local", BRIDGE_LOCAL_RELAYER_KEY: relayerKey, LOG_LEVEL: "silent" });
}, 120_000);
afterAll(async () => {
  await handle?.close();
  await database?.drop();
  await chains?.stop();
});

test("two relayers signing one planned fill (both read it as planned): one transaction is sent, the row holds its hash", async () => {
  const { requestId, planned } = await plannedFill();
  const deps = { config, db: handle.db, logger: createLogger({ level: "silent" }) };
  const nonceBefore = await chains.destination.publicClient.getTransactionCount({ address: relayerAddress, blockTag: "pending" });
  const merchantBefore = await chains.balanceOf(chains.destination, "USDC", merchantWallet);

  // Both read the row as planned; the second signs after the first recorded and sent its own.
  await signTransfer(deps, planned);
  await signTransfer(deps, planned);
  await chains.destination.mine(1);

  const [row] = await transfersOf(handle.db, [requestId]);
  expect(row!.status).toBe("signed");
  const receipt = await chains.destination.publicClient.getTransactionReceipt({ hash: row!.txHash as Hex });
  expect(receipt.status).toBe("success");
  expect(await chains.destination.publicClient.getTransactionCount({ address: relayerAddress, blockTag: "pending" })).toBe(nonceBefore + 1);
  expect(await chains.balanceOf(chains.destination, "USDC", merchantWallet)).toBe(merchantBefore + 1_000_000n);
}, 60_000);

/** A request being filled: its deposit judged a fill, and the fill planned, not signed. */
async function plannedFill(extra: { refundRequested?: boolean } = {}) {
  const usdc = (chain: BridgeChains["origin"]) => getAddress(chain.tokens.find((t) => t.symbol === "USDC")!.address);
  const requestId = randomUUID();
  await insertRequest(handle.db, requestRow({ id: requestId, depositAddress: "0x000000000000000000000000000000000000dEaD", state: "filling", scannedBlock: 0n, ...extra }));
  await recordDeposit(handle.db, {
    requestId,
    chainId: "31338",
    txHash: `0x${randomUUID().replaceAll("-", "").padEnd(64, "c")}`,
    logIndex: 0,
    sender: relayerAddress,
    amount: 1_001_000n,
    blockNumber: 1n,
    blockTimestamp: new Date(),
    disposition: "fill",
    reason: "paid",
  });
  const [deposit] = await handle.client`select id from local_bridge_deposits where request_id = ${requestId}`;
  await planTransfer(handle.db, { requestId, depositId: deposit.id, kind: "fill", chainId: "31337", token: usdc(chains.destination), toAddress: merchantWallet, amount: 1_000_000n });
  return { requestId, depositId: deposit.id as string, planned: (await transfersOf(handle.db, [requestId]))[0]! };
}

// BUG: a refund asked for (the merchant cancelled) after a deposit was judged a fill, or judged
// against the request read before the ask, was ignored: the fill went out and the cancelled payment completed.
test("a fill planned but not signed when a refund is asked for is withdrawn: never sent, the deposit returned instead", async () => {
  const { requestId, depositId, planned } = await plannedFill({ refundRequested: true });
  const deps = { config, db: handle.db, logger: createLogger({ level: "silent" }) };
  const nonceBefore = await chains.destination.publicClient.getTransactionCount({ address: relayerAddress, blockTag: "pending" });
  await signTransfer(deps, planned);
  expect(await chains.destination.publicClient.getTransactionCount({ address: relayerAddress, blockTag: "pending" })).toBe(nonceBefore);
  expect((await transfersOf(handle.db, [requestId])).map((t) => [t.kind, t.status])).toEqual([["fill", "failed"]]);
  const [deposit] = await handle.client`select disposition from local_bridge_deposits where id = ${depositId}`;
  expect(deposit.disposition).toBe("refund");
  expect((await findRequest(handle.db, requestId))!.state).toBe("refunding");
}, 60_000);

// BUG: deposits were scanned up to the chain's head and the scan moved past it: a block reorged
// after that was never scanned again, so a deposit re-mined into the new block was never seen
// (the customer's money left in the deposit address), while the vanished one was still judged and filled.
test("with 2 confirmations, a deposit whose block is reorged and re-mined: the re-mined deposit is the one recorded", async () => {
  await handle.client`update local_bridge_requests set state = 'filled', expires_at = now() - interval '2 hours'`;
  const confirmed = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, NETWORKS_FILE: chains.networksFile, BRIDGE_ADAPTER: "local", BRIDGE_LOCAL_RELAYER_KEY: relayerKey, BRIDGE_LOCAL_CONFIRMATIONS: "2", LOG_LEVEL: "silent" });
  const deps = { config: confirmed, db: handle.db, logger: createLogger({ level: "silent" }) };
  const { requestId, depositAddress } = await openRequest();
  const snapshot = await chains.origin.rpc<string>("evm_snapshot");
  const vanished = await chains.pay("USDC", depositAddress, 1_001_000n);
  await relayerTick(deps); // the deposit's block is the head: one confirmation of two
  await chains.origin.rpc("evm_revert", [snapshot]);
  const kept = await chains.pay("USDC", depositAddress, 1_001_000n);
  expect(kept).not.toBe(vanished);
  await chains.origin.mine(1);
  await relayerTick(deps);
  const deposits = await handle.client`select tx_hash from local_bridge_deposits where request_id = ${requestId}`;
  expect(deposits.map((d: { tx_hash: string }) => d.tx_hash)).toEqual([kept]);
  expect(["filling", "filled"]).toContain((await findRequest(handle.db, requestId))!.state);
}, 60_000);

// BUG: a signed transfer on a chain whose node was down failed the whole pass before any deposit
// was scanned: one unreachable chain stopped every route of the bridge.
test("a transfer on a chain whose node is down does not stop the pass: a deposit on another chain is still recorded", async () => {
  await handle.client`update local_bridge_requests set state = 'filled', expires_at = now() - interval '2 hours'`;
  const good = { config, db: handle.db, logger: createLogger({ level: "silent" }) };
  const { planned } = await plannedFill();
  await signTransfer(good, planned); // signed, not yet followed: its receipt is read on the destination chain
  const file = JSON.parse(readFileSync(chains.networksFile, "utf8")) as { networks: Array<{ chainId: string; rpcUrl?: string; wsUrl?: string }> };
  const dead = join(mkdtempSync(join(tmpdir(), "stablepay-dead-")), "networks.json");
  writeFileSync(dead, JSON.stringify({ networks: file.networks.map((n) => (String(n.chainId) === "31337" ? { ...n, rpcUrl: "http://127.0.0.1:1", wsUrl: undefined } : n)) }));
  const down = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, NETWORKS_FILE: dead, BRIDGE_ADAPTER: "local", BRIDGE_LOCAL_RELAYER_KEY: relayerKey, LOG_LEVEL: "silent", RPC_TIMEOUT_MS: "500" });
  const { requestId, depositAddress } = await openRequest();
  const paid = await chains.pay("USDC", depositAddress, 1_001_000n);
  await relayerTick({ ...good, config: down });
  const deposits = await handle.client`select tx_hash from local_bridge_deposits where request_id = ${requestId}`;
  expect(deposits.map((d: { tx_hash: string }) => d.tx_hash)).toEqual([paid]);
}, 60_000);

/** An open request at a fresh deposit address, scanned up to the origin's head. */
async function openRequest() {
  const depositAddress = getAddress(`0x${randomUUID().replaceAll("-", "").padEnd(40, "a")}`);
  const requestId = randomUUID();
  await insertRequest(handle.db, requestRow({ id: requestId, depositAddress, state: "open", scannedBlock: await chains.origin.publicClient.getBlockNumber({ cacheTime: 0 }) }));
  return { requestId, depositAddress };
}

/** A request for 1 USDC from anvil-2 to anvil (1,001,000 units to send, 1,000 of them the fee), open for ten minutes. */
function requestRow(over: Pick<Parameters<typeof insertRequest>[1], "id" | "depositAddress" | "state" | "scannedBlock"> & { refundRequested?: boolean }): Parameters<typeof insertRequest>[1] {
  const usdc = (chain: BridgeChains["origin"]) => getAddress(chain.tokens.find((t) => t.symbol === "USDC")!.address);
  return {
    reference: randomUUID(),
    originChainId: "31338",
    originToken: usdc(chains.origin),
    destinationChainId: "31337",
    destinationToken: usdc(chains.destination),
    recipient: merchantWallet,
    amount: 1_000_000n,
    amountToSend: 1_001_000n,
    fee: 1_000n,
    expiresAt: new Date(Date.now() + 600_000),
    ...over,
  };
}
