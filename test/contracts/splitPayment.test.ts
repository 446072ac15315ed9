import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  type PublicClient,
  encodeAbiParameters,
  getAbiItem,
  keccak256,
  zeroAddress,
} from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import { anvilAccounts, type AnvilInstance, testStablecoinAbi } from "@stablepay/devchain/evm";
import { deploySettlement, isIssuedSplit, parseSplitPaymentLogs, splitPaymentCall } from "../../rails/evm/settlement/index.ts";
import { splitShares, type SplitPaymentParams } from "../../domain/splitPayment.ts";
import { type TokenChain, freshAddress, startTokenChain } from "../../harness/tokenChain.ts";

/**
 * The settlement contract's `splitPayment`, the path the published client SDK calls: the
 * caller names everything, the contract checks the SDK's rules (amount, shares, recipients,
 * single use keyed by the whole params) with the SDK's revert reasons, pays every recipient
 * in one transaction and says what they received.
 */
const chainId = 31_337;
const deployerKey = anvilAccounts[0];
const alice = privateKeyToAccount(anvilAccounts[1]);
const mallory = privateKeyToAccount(anvilAccounts[8]);

let anvil: AnvilInstance;
let publicClient: PublicClient;
let token: TokenChain["token"];
let walletFor: TokenChain["walletFor"];
let balanceOf: TokenChain["balanceOf"];
let settlement: Address;

beforeAll(async () => {
  ({ anvil, publicClient, token, walletFor, balanceOf } = await startTokenChain({
    chainId,
    deployerPrivateKey: deployerKey,
    fund: [
      { address: alice.address, amount: 1_000_000n },
      { address: mallory.address, amount: 1_000n },
    ],
  }));
  const operator = privateKeyToAccount(anvilAccounts[4]).address;
  settlement = await deploySettlement({ rpcUrl: anvil.rpcUrl, chainId, deployerPrivateKey: deployerKey, operator, owner: operator });
});

afterAll(async () => {
  await anvil?.stop();
});

/** The params the service would issue for a payment of `amount` USDC units at `feeBps`, to fresh wallets. */
function issued(amount: bigint, feeBps = 175, overrides: Partial<SplitPaymentParams> = {}): SplitPaymentParams {
  const call = splitPaymentCall({
    settlementAddress: settlement,
    paymentId: crypto.randomUUID(),
    token: token("USDC").address,
    amount,
    merchantWallet: freshAddress(),
    feeRecipient: freshAddress(),
    feeBps,
  });
  return { ...call.params, ...overrides };
}

/** As the SDK's params helper hands them to viem: numbers as bigints. */
const args = (p: SplitPaymentParams) => ({
  ...p,
  token: p.token as Address,
  recipient1: p.recipient1 as Address,
  recipient2: p.recipient2 as Address,
  recipient3: p.recipient3 as Address,
  amount: BigInt(p.amount),
  recipient1Percentage: BigInt(p.recipient1Percentage),
  recipient2Percentage: BigInt(p.recipient2Percentage),
  recipient3Percentage: BigInt(p.recipient3Percentage),
});

async function approve(payer: PrivateKeyAccount, amount: bigint) {
  const hash = await walletFor(payer).writeContract({ address: token("USDC").address, abi: testStablecoinAbi, functionName: "approve", args: [settlement, amount] });
  await publicClient.waitForTransactionReceipt({ hash });
}

async function split(payer: PrivateKeyAccount, p: SplitPaymentParams) {
  const hash = await walletFor(payer).writeContract({ address: settlement, abi: paymentSettlementAbi, functionName: "splitPayment", args: [args(p)] });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

/** The revert reason (`require(…, reason)`) `payer` would get calling `splitPayment(p)` now. */
async function reasonOf(payer: PrivateKeyAccount, p: SplitPaymentParams): Promise<string | undefined> {
  const error = await publicClient
    .simulateContract({ account: payer, address: settlement, abi: paymentSettlementAbi, functionName: "splitPayment", args: [args(p)] })
    .then(() => null)
    .catch((e: unknown) => e);
  if (!(error instanceof BaseError)) return undefined;
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError);
  return reverted instanceof ContractFunctionRevertedError ? reverted.reason : undefined;
}

describe("splitPayment pays", () => {
  test("every recipient its share in one transaction, and says so in one event", async () => {
    const p = issued(25_500_000n);
    await approve(alice, 25_500_000n);
    const before = await balanceOf(token("USDC").address, alice.address);
    const receipt = await split(alice, p);
    const [share1, share2] = splitShares(25_500_000n, p);
    expect([share1, share2]).toEqual([25_053_750n, 446_250n]);
    expect(await balanceOf(token("USDC").address, p.recipient1 as Address)).toBe(share1);
    expect(await balanceOf(token("USDC").address, p.recipient2 as Address)).toBe(share2);
    expect(before - (await balanceOf(token("USDC").address, alice.address))).toBe(25_500_000n);

    const [event, ...more] = parseSplitPaymentLogs(receipt.logs, settlement);
    expect(more).toEqual([]);
    expect(event!.params).toEqual(p);
    expect(event!.received).toBe(25_500_000n);
    expect(event!.payer).toBe(alice.address);
    expect(isIssuedSplit(event!.params, p)).toBe(true);
    // The single-use key is keccak256(abi.encode(params)), as the contract's view says.
    const struct = getAbiItem({ abi: paymentSettlementAbi, name: "splitPaymentKey" }).inputs;
    expect(event!.key).toBe(keccak256(encodeAbiParameters(struct, [args(p)])));
    expect(await publicClient.readContract({ address: settlement, abi: paymentSettlementAbi, functionName: "splitPaymentKey", args: [args(p)] })).toBe(event!.key);
    expect(await publicClient.readContract({ address: settlement, abi: paymentSettlementAbi, functionName: "isSplitPaymentUsed", args: [event!.key] })).toBe(true);
  });

  test("shares round down for recipients 2 and 3, recipient 1 gets the rest: they add up to the amount", async () => {
    const p = issued(1_000_001n, 175, { recipient3: freshAddress(), recipient1Percentage: 9_725, recipient3Percentage: 100 });
    await approve(alice, 1_000_001n);
    await split(alice, p);
    const usdc = token("USDC").address;
    const received = await Promise.all([p.recipient1, p.recipient2, p.recipient3].map((r) => balanceOf(usdc, r as Address)));
    expect(received).toEqual([972_501n, 17_500n, 10_000n]);
    expect(received.reduce((a, b) => a + b)).toBe(1_000_001n);
  });

  test("no fee: recipient 2 at 0% gets nothing and nothing is sent to it", async () => {
    const p = issued(5_000_000n, 0);
    await approve(alice, 5_000_000n);
    const receipt = await split(alice, p);
    expect(await balanceOf(token("USDC").address, p.recipient1 as Address)).toBe(5_000_000n);
    expect(await balanceOf(token("USDC").address, p.recipient2 as Address)).toBe(0n);
    // One Transfer (the merchant's) and the event: no zero transfer.
    expect(receipt.logs.length).toBe(2);
  });
});

describe("splitPayment refuses, with the reasons the SDK recognises", () => {
  test.each<[string, (p: SplitPaymentParams) => SplitPaymentParams, string]>([
    ["amount 0", (p) => ({ ...p, amount: "0" }), "Amount must be greater than 0"],
    ["percentages summing to 9999", (p) => ({ ...p, recipient1Percentage: p.recipient1Percentage - 1 }), "Percentages must equal 100%"],
    ["percentages summing to 10001", (p) => ({ ...p, recipient2Percentage: p.recipient2Percentage + 1 }), "Percentages must equal 100%"],
    ["a percentage over 100% that wraps the sum", (p) => ({ ...p, recipient1Percentage: 20_000, recipient2Percentage: 0, recipient3Percentage: 0 }), "Percentages must equal 100%"],
    ["recipient1 the zero address", (p) => ({ ...p, recipient1: zeroAddress }), "Invalid recipient"],
    ["recipient2 the zero address", (p) => ({ ...p, recipient2: zeroAddress }), "Invalid recipient"],
    ["recipient3 the zero address with a share", (p) => ({ ...p, recipient1Percentage: p.recipient1Percentage - 1, recipient3Percentage: 1 }), "Invalid recipient"],
    ["no allowance", (p) => p, "Token transfer failed"],
  ])("%s", async (_name, change, reason) => {
    await approve(alice, 0n);
    expect(await reasonOf(alice, change(issued(1_000_000n)))).toBe(reason);
  });

  test("the same params twice: the second is refused and moves nothing", async () => {
    const p = issued(2_000_000n);
    await approve(alice, 4_000_000n);
    await split(alice, p);
    expect(await reasonOf(alice, p)).toBe("Payment ID already used");
    expect(await balanceOf(token("USDC").address, p.recipient1 as Address)).toBe(splitShares(2_000_000n, p)[0]);
  });

  test("a stranger calling first with the payment's id and himself as recipient cannot block the payment", async () => {
    const p = issued(3_000_000n);
    // Mallory pays 1 unit to himself under the payment's id, before the customer.
    const squat: SplitPaymentParams = { ...p, amount: "1", recipient1: mallory.address, recipient2: mallory.address, recipient1Percentage: 10_000, recipient2Percentage: 0 };
    await approve(mallory, 1n);
    const squatted = parseSplitPaymentLogs((await split(mallory, squat)).logs, settlement)[0]!;
    expect(isIssuedSplit(squatted.params, p)).toBe(false);
    // The customer's call with the issued params still goes through.
    await approve(alice, 3_000_000n);
    const paid = parseSplitPaymentLogs((await split(alice, p)).logs, settlement)[0]!;
    expect(isIssuedSplit(paid.params, p)).toBe(true);
    expect(await balanceOf(token("USDC").address, p.recipient1 as Address)).toBe(splitShares(3_000_000n, p)[0]);
  });
});

describe("isIssuedSplit", () => {
  const p: SplitPaymentParams = issuedOffline();
  function issuedOffline(): SplitPaymentParams {
    return splitPaymentCall({
      settlementAddress: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
      paymentId: "0191f3a2-7c4e-7b8a-9d3e-5f6a7b8c9d0e",
      token: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      amount: 10_000_000n,
      merchantWallet: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      feeRecipient: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
      feeBps: 175,
    }).params;
  }
  test("the issued params, whatever the case of their addresses", () => {
    expect(isIssuedSplit({ ...p, token: p.token.toLowerCase(), recipient1: p.recipient1.toUpperCase().replace("0X", "0x") }, p)).toBe(true);
  });
  test.each<[string, Partial<SplitPaymentParams>]>([
    ["another token", { token: "0x0000000000000000000000000000000000000001" }],
    ["another amount", { amount: "9999999" }],
    ["another payment id", { paymentId: "0191f3a2-7c4e-7b8a-9d3e-5f6a7b8c9d0f" }],
    ["another merchant", { recipient1: "0x0000000000000000000000000000000000000002" }],
    ["another fee wallet", { recipient2: "0x0000000000000000000000000000000000000003" }],
    ["a third recipient", { recipient3: "0x0000000000000000000000000000000000000004" }],
    ["other shares", { recipient1Percentage: 10_000, recipient2Percentage: 0 }],
  ])("%s: not the issued call", (_name, change) => {
    expect(isIssuedSplit({ ...p, ...change }, p)).toBe(false);
  });
});
