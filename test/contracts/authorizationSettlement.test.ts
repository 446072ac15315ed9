import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, parseEventLogs, parseSignature, toHex } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, type AnvilInstance, type DeployedToken, testStablecoinAbi } from "@stablepay/devchain/evm";
import { deploySettlement } from "../../rails/evm/settlement/index.ts";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import { type TokenChain, freshAddress, revertOf, startTokenChain } from "../../harness/tokenChain.ts";

/**
 * PaymentSettlement's x402 path (`AuthorizationSettlement`): the settler alone passes an EIP-3009
 * authorization, signed to pay the contract, on to merchant and fee recipient in one transaction.
 */
const chainId = 31_337;
const deployerKey = anvilAccounts[0];
const settler = privateKeyToAccount(anvilAccounts[3]);
const owner = privateKeyToAccount(anvilAccounts[5]);
const agent = privateKeyToAccount(anvilAccounts[1]);
const stranger = privateKeyToAccount(anvilAccounts[8]);

let anvil: AnvilInstance;
let publicClient: TokenChain["publicClient"];
let token: TokenChain["token"];
let walletFor: TokenChain["walletFor"];
let balanceOf: TokenChain["balanceOf"];
let settlement: Address;

const authorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** An authorization `agent` signs to pay the settlement contract `value` of `t`, as x402's `exact` client does. */
async function authorize(t: DeployedToken, value: bigint, to: Address = settlement) {
  const now = (await publicClient.getBlock()).timestamp;
  const auth = { token: t.address, from: agent.address, value, validAfter: 0n, validBefore: now + 600n, nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) };
  const signature = await agent.signTypedData({
    domain: { name: t.name, version: t.version, chainId, verifyingContract: t.address },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: { from: auth.from, to, value: auth.value, validAfter: auth.validAfter, validBefore: auth.validBefore, nonce: auth.nonce },
  });
  return { auth, signature };
}

type Signed = Awaited<ReturnType<typeof authorize>>;
type Split = { merchant: Address; fee: bigint; feeRecipient: Address; received?: boolean };
const argsOf = ({ auth, signature }: Signed, split: Split) => [auth, signature, split.merchant, split.fee, split.feeRecipient, split.received ?? false] as const;

async function settleRevert(signed: Signed, split: Split, caller: PrivateKeyAccount = settler, at: Address = settlement) {
  const error = await publicClient
    .simulateContract({ account: caller, address: at, abi: paymentSettlementAbi, functionName: "settleAuthorization", args: argsOf(signed, split) })
    .catch((e: unknown) => e);
  return revertOf(error);
}

async function settle(signed: Signed, split: Split) {
  const hash = await walletFor(settler).writeContract({ address: settlement, abi: paymentSettlementAbi, functionName: "settleAuthorization", args: argsOf(signed, split) });
  return publicClient.waitForTransactionReceipt({ hash });
}

beforeAll(async () => {
  ({ anvil, publicClient, token, walletFor, balanceOf } = await startTokenChain({ chainId, deployerPrivateKey: deployerKey, fund: [{ address: agent.address, amount: 1_000_000n }] }));
  settlement = await deploySettlement({ rpcUrl: anvil.rpcUrl, chainId, deployerPrivateKey: deployerKey, operator: freshAddress(), owner: owner.address, settler: settler.address });
});

afterAll(async () => {
  await anvil?.stop();
});

describe("PaymentSettlement.settleAuthorization", () => {
  test("pulls the authorization and pays merchant amount - fee and the fee recipient the fee, in one transaction; keeps nothing", async () => {
    const usdc = token("USDC");
    const merchant = freshAddress();
    const feeRecipient = freshAddress();
    const signed = await authorize(usdc, 1_000_000n);
    const before = await balanceOf(usdc.address, agent.address);
    const receipt = await settle(signed, { merchant, fee: 25_000n, feeRecipient });
    expect(receipt.status).toBe("success");
    expect(await balanceOf(usdc.address, merchant)).toBe(975_000n);
    expect(await balanceOf(usdc.address, feeRecipient)).toBe(25_000n);
    expect(await balanceOf(usdc.address, agent.address)).toBe(before - 1_000_000n);
    expect(await balanceOf(usdc.address, settlement)).toBe(0n);
    const [event] = parseEventLogs({ abi: paymentSettlementAbi, eventName: "AuthorizationSettled", logs: receipt.logs });
    expect(event!.args).toEqual({ token: usdc.address, from: agent.address, nonce: signed.auth.nonce, merchant, amount: 1_000_000n, fee: 25_000n, feeRecipient });
    expect(await publicClient.readContract({ address: settlement, abi: paymentSettlementAbi, functionName: "isAuthorizationSettled", args: [usdc.address, agent.address, signed.auth.nonce] })).toBe(true);
    // Settled once: the same authorization again reverts, pulled or not.
    expect(await settleRevert(signed, { merchant, fee: 0n, feeRecipient })).toEqual({ name: "AuthorizationAlreadySettled", args: undefined });
    expect(await settleRevert(signed, { merchant, fee: 0n, feeRecipient, received: true })).toEqual({ name: "AuthorizationAlreadySettled", args: undefined });
  });

  test("a stranger cannot call it, whatever it names as merchant", async () => {
    const signed = await authorize(token("USDC"), 10_000n);
    for (const received of [false, true]) {
      expect(await settleRevert(signed, { merchant: stranger.address, fee: 0n, feeRecipient: stranger.address, received }, stranger)).toEqual({ name: "NotSettler", args: undefined });
    }
    // The owner is no settler either.
    expect(await settleRevert(signed, { merchant: owner.address, fee: 0n, feeRecipient: owner.address }, owner)).toEqual({ name: "NotSettler", args: undefined });
  });

  test("with no settler set, nobody can settle", async () => {
    const unset = await deploySettlement({ rpcUrl: anvil.rpcUrl, chainId, deployerPrivateKey: deployerKey, operator: freshAddress(), owner: owner.address });
    const signed = await authorize(token("USDC"), 10_000n, unset);
    const zero = "0x0000000000000000000000000000000000000000" as Address;
    expect(await publicClient.readContract({ address: unset, abi: paymentSettlementAbi, functionName: "settler" })).toBe(zero);
    expect(await settleRevert(signed, { merchant: freshAddress(), fee: 0n, feeRecipient: freshAddress() }, settler, unset)).toEqual({ name: "NotSettler", args: undefined });
  });

  test("a fee above the amount, or a zero amount, reverts InvalidAmount; a bad signature reverts with the token's own reason", async () => {
    const usdc = token("USDC");
    const signed = await authorize(usdc, 10_000n);
    expect(await settleRevert(signed, { merchant: freshAddress(), fee: 10_001n, feeRecipient: freshAddress() })).toEqual({ name: "InvalidAmount", args: undefined });
    const zero = await authorize(usdc, 0n);
    expect(await settleRevert(zero, { merchant: freshAddress(), fee: 0n, feeRecipient: freshAddress() })).toEqual({ name: "InvalidAmount", args: undefined });
    // A larger value than was signed: the token refuses the signature.
    const inflated = { ...signed, auth: { ...signed.auth, value: 20_000n } };
    const refused = await publicClient
      .simulateContract({ account: settler, address: settlement, abi: [...paymentSettlementAbi, ...testStablecoinAbi.filter((item) => item.type === "error")], functionName: "settleAuthorization", args: argsOf(inflated, { merchant: freshAddress(), fee: 0n, feeRecipient: freshAddress() }) })
      .catch((e: unknown) => e);
    expect(revertOf(refused)).toEqual({ name: "InvalidSignature", args: undefined });
  });

  test("an authorization someone submitted to the token directly is passed on from the contract once (received)", async () => {
    const usdc = token("USDC");
    const signed = await authorize(usdc, 40_000n);
    const { v, r, s } = parseSignature(signed.signature);
    const { auth } = signed;
    const direct = await walletFor(stranger).writeContract({
      address: usdc.address,
      abi: testStablecoinAbi,
      functionName: "transferWithAuthorization",
      args: [auth.from, settlement, auth.value, auth.validAfter, auth.validBefore, auth.nonce, Number(v), r, s],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash: direct })).status).toBe("success");
    expect(await balanceOf(usdc.address, settlement)).toBe(40_000n);
    // Pulling again fails at the token: the nonce is spent.
    const merchant = freshAddress();
    const feeRecipient = freshAddress();
    expect(await settleRevert(signed, { merchant, fee: 400n, feeRecipient })).not.toBeUndefined();
    expect((await settle(signed, { merchant, fee: 400n, feeRecipient, received: true })).status).toBe("success");
    expect(await balanceOf(usdc.address, merchant)).toBe(39_600n);
    expect(await balanceOf(usdc.address, feeRecipient)).toBe(400n);
    expect(await balanceOf(usdc.address, settlement)).toBe(0n);
  });

  test("only the owner replaces the settler; the old one can no longer settle", async () => {
    const isolated = await deploySettlement({ rpcUrl: anvil.rpcUrl, chainId, deployerPrivateKey: deployerKey, operator: freshAddress(), owner: owner.address, settler: settler.address });
    const contract = { address: isolated, abi: paymentSettlementAbi } as const;
    const bySettler = await publicClient.simulateContract({ ...contract, account: settler, functionName: "setSettler", args: [stranger.address] }).catch((e: unknown) => e);
    expect(revertOf(bySettler)).toEqual({ name: "NotOwner", args: undefined });
    const hash = await walletFor(owner).writeContract({ ...contract, functionName: "setSettler", args: [stranger.address] });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [changed] = parseEventLogs({ abi: paymentSettlementAbi, eventName: "SettlerChanged", logs: receipt.logs });
    expect(changed!.args).toEqual({ previousSettler: settler.address, newSettler: stranger.address });
    const signed = await authorize(token("USDC"), 10_000n, isolated);
    expect(await settleRevert(signed, { merchant: freshAddress(), fee: 0n, feeRecipient: freshAddress() }, settler, isolated)).toEqual({ name: "NotSettler", args: undefined });
    const byNewSettler = await publicClient.simulateContract({ ...contract, account: stranger, functionName: "settleAuthorization", args: argsOf(signed, { merchant: freshAddress(), fee: 0n, feeRecipient: freshAddress() }) });
    expect(byNewSettler.result).toBeUndefined();
  });
});
