import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { erc20Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { anvilAccounts } from "@stablepay/devchain/evm";
import type { SplitPaymentCall, SplitPaymentParams } from "../../domain/splitPayment.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import { commands } from "../../scripts/cli/commands.ts";
import { createPonderCheckpointTable, setIndexedBlock } from "../../harness/fixtures.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * `npm run cli -- replay` finds the client SDK's `splitPayment` calls the indexer missed
 * (`SplitPaymentExecuted`, recorded as replayed evidence): the issued call completes the
 * payment once; a stranger's call under the same id is found, recorded and credits nothing.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
const stranger = privateKeyToAccount(anvilAccounts[7] as Hex);
const logger = createLogger({ level: "silent" });
const run = (flags: Record<string, string | boolean>) => commands.replay!({ db: api.db, config: api.config, databaseUrl: api.databaseUrl, logger }, flags);

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 3, finalityBlocks: 3, alsoFund: [stranger.address] });
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
}, 120_000);

afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

async function split(call: SplitPaymentCall, params: SplitPaymentParams, from = customer) {
  const approve = await chain.customerWallet.writeContract({ address: call.tokenAddress as Address, abi: erc20Abi, functionName: "approve", args: [call.contractAddress as Address, BigInt(params.amount)], account: from, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash: approve });
  const args = {
    ...params,
    token: params.token as Address, recipient1: params.recipient1 as Address, recipient2: params.recipient2 as Address, recipient3: params.recipient3 as Address,
    amount: BigInt(params.amount), recipient1Percentage: BigInt(params.recipient1Percentage), recipient2Percentage: BigInt(params.recipient2Percentage), recipient3Percentage: BigInt(params.recipient3Percentage),
  };
  const hash = await chain.customerWallet.writeContract({ address: call.contractAddress as Address, abi: paymentSettlementAbi, functionName: "splitPayment", args: [args], account: from, chain: null });
  expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  return hash;
}

test("a split payment the indexer missed is found by replay; only the issued call credits; replaying again changes nothing", async () => {
  const created = await api.request("/api/payments/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "6", currency: "USDC", network: "anvil" } });
  expect(created.status).toBe(201);
  const { id, contractCall } = created.body.payment as { id: string; contractCall: SplitPaymentCall };
  await split(contractCall, { ...contractCall.params, amount: "1", recipient1: stranger.address, recipient2: stranger.address, recipient1Percentage: 10_000, recipient2Percentage: 0 }, stranger);
  const hash = await split(contractCall, contractCall.params);
  await chain.mine(5);
  const head = await chain.publicClient.getBlockNumber();
  // The indexer never ran: its checkpoint says it read up to the head (and missed both calls).
  await createPonderCheckpointTable(api.db, api.config.indexer.viewsSchema);
  await setIndexedBlock(api.db, api.config.indexer.viewsSchema, { name: "anvil", chainId: 31337 }, head);
  await reconcilePayments(api.db, api.config, [id]);
  const status = async () => (await api.request(`/api/payments/status/${id}`, { headers: { "x-public-key": merchant.publicKey } })).body.payment;
  expect(await status()).toMatchObject({ status: "pending", amountReceived: "0" });

  const first = await run({ network: "anvil", from: "0", to: String(head) });
  expect(first).toContain("evidence found: 2, new: 2, already known: 0");
  expect(first).toContain(`${id}: pending → completed`);
  expect(await status()).toMatchObject({ status: "completed", amountReceived: "6", transactionHash: hash });
  const rows = await queryRows<{ amount: string; recipient1: string }>(api.db, sql`select amount::text, recipient1 from replayed_split_payment order by block_number`);
  expect(rows).toEqual([{ amount: "1", recipient1: stranger.address.toLowerCase() }, { amount: "6000000", recipient1: merchantWallet.toLowerCase() }]);

  const second = await run({ network: "anvil", from: "0", to: String(head) });
  expect(second).toContain("evidence found: 2, new: 0, already known: 2");
  expect(second).toContain("payments whose state changed: 0");
}, 120_000);
