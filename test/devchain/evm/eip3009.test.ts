import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Hex, type PublicClient, parseSignature, toHex } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, type DeployedToken, testStablecoinAbi } from "@stablepay/devchain/evm";
import { type TokenChain, freshAddress, revertName, startTokenChain } from "../../../harness/tokenChain.ts";

// EIP-3009 as real USDC has it: what x402's `exact` scheme on EVM settles with.
const chainId = 31_337;
const alice = privateKeyToAccount(anvilAccounts[1]);
const relayer = privateKeyToAccount(anvilAccounts[2]);

let chain: TokenChain;
let publicClient: PublicClient;
let usdc: DeployedToken;

beforeAll(async () => {
  chain = await startTokenChain({ chainId, fund: [{ address: alice.address, amount: 1_000n }] });
  publicClient = chain.publicClient;
  usdc = chain.token("USDC");
});

afterAll(async () => {
  await chain?.stop();
});

const authorizationFields = [
  { name: "from", type: "address" },
  { name: "to", type: "address" },
  { name: "value", type: "uint256" },
  { name: "validAfter", type: "uint256" },
  { name: "validBefore", type: "uint256" },
  { name: "nonce", type: "bytes32" },
] as const;

type Authorization = { from: Hex; to: Hex; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };

async function authorize(
  signer: PrivateKeyAccount,
  overrides: Partial<Authorization> = {},
  primaryType: "TransferWithAuthorization" | "ReceiveWithAuthorization" = "TransferWithAuthorization",
) {
  const now = (await publicClient.getBlock()).timestamp;
  const message: Authorization = {
    from: alice.address,
    to: freshAddress(),
    value: 1_500_000n,
    validAfter: now - 10n,
    validBefore: now + 600n,
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
    ...overrides,
  };
  const signature = await signer.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId, verifyingContract: usdc.address },
    types: { [primaryType]: authorizationFields },
    primaryType,
    message,
  });
  const { v, r, s } = parseSignature(signature);
  const vrsArgs = [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, Number(v), r, s] as const;
  return { message, signature, vrsArgs };
}

const submit = (args: readonly unknown[], functionName: "transferWithAuthorization" | "receiveWithAuthorization" = "transferWithAuthorization", from = relayer) =>
  chain
    .walletFor(from)
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    .writeContract({ address: usdc.address, abi: testStablecoinAbi, functionName, args: args as any })
    .then((hash) => publicClient.waitForTransactionReceipt({ hash }));

const simulate = (args: readonly unknown[], functionName: "transferWithAuthorization" | "receiveWithAuthorization" = "transferWithAuthorization", from = relayer) =>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  publicClient.simulateContract({ account: from, address: usdc.address, abi: testStablecoinAbi, functionName, args: args as any }).catch((e: unknown) => e);

describe("TestStablecoin EIP-3009", () => {
  test("USDC's EIP-712 domain is USD Coin, version 2", async () => {
    expect(usdc.version).toBe("2");
    expect(await publicClient.readContract({ address: usdc.address, abi: testStablecoinAbi, functionName: "name" })).toBe("USD Coin");
    expect(await publicClient.readContract({ address: usdc.address, abi: testStablecoinAbi, functionName: "version" })).toBe("2");
  });

  test("a relayer submits the payer's authorization: the money moves once, the nonce is spent", async () => {
    const { message, vrsArgs } = await authorize(alice);
    const before = await chain.balanceOf(usdc.address, alice.address);
    const receipt = await submit(vrsArgs);
    expect(receipt.status).toBe("success");
    expect(await chain.balanceOf(usdc.address, message.to)).toBe(1_500_000n);
    expect(await chain.balanceOf(usdc.address, alice.address)).toBe(before - 1_500_000n);
    expect(
      await publicClient.readContract({ address: usdc.address, abi: testStablecoinAbi, functionName: "authorizationState", args: [alice.address, message.nonce] }),
    ).toBe(true);
    expect(revertName(await simulate(vrsArgs))).toBe("AuthorizationUsedOrCanceled");
  });

  test("the bytes-signature overload settles as well", async () => {
    const { message, signature } = await authorize(alice);
    const args = [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature] as const;
    expect((await submit(args)).status).toBe("success");
    expect(await chain.balanceOf(usdc.address, message.to)).toBe(1_500_000n);
  });

  test("outside its window, or signed by another key, it reverts", async () => {
    const now = (await publicClient.getBlock()).timestamp;
    expect(revertName(await simulate((await authorize(alice, { validAfter: now + 300n })).vrsArgs))).toBe("AuthorizationNotYetValid");
    expect(revertName(await simulate((await authorize(alice, { validBefore: now - 1n })).vrsArgs))).toBe("AuthorizationExpired");
    expect(revertName(await simulate((await authorize(relayer)).vrsArgs))).toBe("InvalidSignature");
    expect(revertName(await simulate((await authorize(alice, { value: 10n ** 15n })).vrsArgs))).toBe("InsufficientBalance");
  });

  test("receiveWithAuthorization only from the payee", async () => {
    const { message, vrsArgs } = await authorize(alice, { to: relayer.address }, "ReceiveWithAuthorization");
    const stranger = privateKeyToAccount(anvilAccounts[3]);
    expect(revertName(await simulate(vrsArgs, "receiveWithAuthorization", stranger))).toBe("CallerMustBePayee");
    // A receive authorization is not a transfer authorization (different type hash).
    expect(revertName(await simulate(vrsArgs, "transferWithAuthorization"))).toBe("InvalidSignature");
    const before = await chain.balanceOf(usdc.address, relayer.address);
    expect((await submit(vrsArgs, "receiveWithAuthorization", relayer)).status).toBe("success");
    expect(await chain.balanceOf(usdc.address, relayer.address)).toBe(before + message.value);
  });
});
