import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type PublicClient, createPublicClient, domainSeparator, getContractAddress, http, parseEventLogs, parseSignature } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, type DeployedToken, deployTestTokens, startAnvil, testStablecoinAbi } from "@stablepay/devchain/evm";
import { type TokenChain, permitTypes, revertName, startTokenChain } from "../../harness/tokenChain.ts";

const chainId = 31_337;
const deployer = privateKeyToAccount(anvilAccounts[0]);
const alice = privateKeyToAccount(anvilAccounts[1]);
const bob = privateKeyToAccount(anvilAccounts[2]);
const carol = privateKeyToAccount(anvilAccounts[3]);

let tokens: DeployedToken[];
let publicClient: PublicClient;
let token: TokenChain["token"];
let walletFor: TokenChain["walletFor"];
let balanceOf: TokenChain["balanceOf"];
let stop: TokenChain["stop"] | undefined;

beforeAll(async () => {
  ({ tokens, publicClient, token, walletFor, balanceOf, stop } = await startTokenChain({
    chainId,
    deployerPrivateKey: anvilAccounts[0],
    fund: [
      { address: alice.address, amount: 1_000_000n },
      { address: bob.address, amount: 250n },
    ],
  }));
});

afterAll(async () => {
  await stop?.();
});

describe("deployTestTokens", () => {
  test("deploys USDC, USDT and DAI with their decimals", async () => {
    expect(tokens.map(({ symbol, name, decimals }) => ({ symbol, name, decimals }))).toEqual([
      { symbol: "USDC", name: "USD Coin", decimals: 6 },
      { symbol: "USDT", name: "Tether USD", decimals: 6 },
      { symbol: "DAI", name: "Dai Stablecoin", decimals: 18 },
    ]);
    for (const t of tokens) {
      const contract = { address: t.address, abi: testStablecoinAbi } as const;
      expect(await publicClient.readContract({ ...contract, functionName: "name" })).toBe(t.name);
      expect(await publicClient.readContract({ ...contract, functionName: "symbol" })).toBe(t.symbol);
      expect(await publicClient.readContract({ ...contract, functionName: "decimals" })).toBe(t.decimals);
      expect(await publicClient.readContract({ ...contract, functionName: "owner" })).toBe(deployer.address);
    }
  });

  test("on a fresh chain, deploys to the deployer's first three nonces' addresses", () => {
    // Stable addresses let a networks file name the sandbox tokens ahead of time.
    expect(tokens[0]?.address).toBe("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    expect(tokens.map((t) => t.address)).toEqual([0n, 1n, 2n].map((nonce) => getContractAddress({ from: deployer.address, nonce })));
  });

  test("mints whole units scaled by decimals to every funded address", async () => {
    expect(await balanceOf(token("USDC").address, alice.address)).toBe(1_000_000_000_000n);
    expect(await balanceOf(token("USDT").address, alice.address)).toBe(1_000_000n * 10n ** 6n);
    expect(await balanceOf(token("DAI").address, alice.address)).toBe(1_000_000n * 10n ** 18n);
    expect(await balanceOf(token("USDC").address, bob.address)).toBe(250_000_000n);
    expect(await balanceOf(token("DAI").address, bob.address)).toBe(250n * 10n ** 18n);
    expect(await balanceOf(token("USDC").address, carol.address)).toBe(0n);
    const totalSupply = await publicClient.readContract({
      address: token("DAI").address,
      abi: testStablecoinAbi,
      functionName: "totalSupply",
    });
    expect(totalSupply).toBe(1_000_250n * 10n ** 18n);
  });

  test("works on a chain that mines on a timer", async () => {
    const timed = await startAnvil({ chainId: 1_338, blockTime: 1 });
    try {
      const deployed = await deployTestTokens({
        rpcUrl: timed.rpcUrl,
        chainId: 1_338,
        deployerPrivateKey: anvilAccounts[0],
        fund: [{ address: carol.address, amount: 5n }],
      });
      expect(deployed.map((t) => t.symbol)).toEqual(["USDC", "USDT", "DAI"]);
      const client = createPublicClient({ transport: http(timed.rpcUrl) });
      const balance = await client.readContract({
        address: deployed[0]?.address ?? "0x",
        abi: testStablecoinAbi,
        functionName: "balanceOf",
        args: [carol.address],
      });
      expect(balance).toBe(5_000_000n);
    } finally {
      await timed.stop();
    }
  });
});

describe("TestStablecoin", () => {
  test("transfer moves the exact amount and emits Transfer", async () => {
    const usdc = token("USDC");
    const hash = await walletFor(alice).writeContract({
      address: usdc.address,
      abi: testStablecoinAbi,
      functionName: "transfer",
      args: [carol.address, 1_234_567n],
    });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [transfer] = parseEventLogs({ abi: testStablecoinAbi, eventName: "Transfer", logs: receipt.logs });
    expect(transfer?.args).toEqual({ from: alice.address, to: carol.address, value: 1_234_567n });
    expect(await balanceOf(usdc.address, carol.address)).toBe(1_234_567n);
    expect(await balanceOf(usdc.address, alice.address)).toBe(1_000_000_000_000n - 1_234_567n);
  });

  test("transfer of more than the balance reverts", async () => {
    const error = await publicClient
      .simulateContract({
        account: bob,
        address: token("USDT").address,
        abi: testStablecoinAbi,
        functionName: "transfer",
        args: [carol.address, 250_000_001n],
      })
      .catch((e: unknown) => e);
    expect(revertName(error)).toBe("InsufficientBalance");
  });

  test("mint by anyone but the owner reverts", async () => {
    const error = await publicClient
      .simulateContract({
        account: alice,
        address: token("USDC").address,
        abi: testStablecoinAbi,
        functionName: "mint",
        args: [alice.address, 1n],
      })
      .catch((e: unknown) => e);
    expect(revertName(error)).toBe("NotOwner");
  });

  for (const symbol of ["USDC", "DAI"] as const) {
    test(`${symbol} permit signed with signTypedData sets the allowance`, async () => {
      const t = token(symbol);
      const domain = { name: t.name, version: t.version, chainId, verifyingContract: t.address } as const;
      const onChainSeparator = await publicClient.readContract({
        address: t.address,
        abi: testStablecoinAbi,
        functionName: "DOMAIN_SEPARATOR",
      });
      expect(onChainSeparator).toBe(domainSeparator({ domain }));

      const value = 42n * 10n ** BigInt(t.decimals);
      const nonce = await publicClient.readContract({ address: t.address, abi: testStablecoinAbi, functionName: "nonces", args: [alice.address] });
      const deadline = (await publicClient.getBlock()).timestamp + 3_600n;
      const signature = await alice.signTypedData({
        domain,
        types: permitTypes,
        primaryType: "Permit",
        message: { owner: alice.address, spender: bob.address, value, nonce, deadline },
      });
      const { v, r, s } = parseSignature(signature);
      if (v === undefined) throw new Error("signature has no v");
      const permitArgs = [alice.address, bob.address, value, deadline, Number(v), r, s] as const;

      // Submitted by bob, who pays the gas: the point of a permit.
      const bobWallet = walletFor(bob);
      const hash = await bobWallet.writeContract({ address: t.address, abi: testStablecoinAbi, functionName: "permit", args: permitArgs });
      expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
      const allowance = () =>
        publicClient.readContract({ address: t.address, abi: testStablecoinAbi, functionName: "allowance", args: [alice.address, bob.address] });
      expect(await allowance()).toBe(value);
      expect(
        await publicClient.readContract({ address: t.address, abi: testStablecoinAbi, functionName: "nonces", args: [alice.address] }),
      ).toBe(nonce + 1n);

      const replay = await publicClient
        .simulateContract({ account: bob, address: t.address, abi: testStablecoinAbi, functionName: "permit", args: permitArgs })
        .catch((e: unknown) => e);
      expect(revertName(replay)).toBe("InvalidSignature");

      // The allowance is spendable exactly once.
      const pull = await bobWallet.writeContract({
        address: t.address,
        abi: testStablecoinAbi,
        functionName: "transferFrom",
        args: [alice.address, carol.address, value],
      });
      await publicClient.waitForTransactionReceipt({ hash: pull });
      expect(await allowance()).toBe(0n);
      expect(await balanceOf(t.address, carol.address)).toBe(symbol === "USDC" ? 1_234_567n + value : value);
    });
  }

  test("an expired permit reverts", async () => {
    const t = token("USDT");
    const deadline = (await publicClient.getBlock()).timestamp - 1n;
    const signature = await alice.signTypedData({
      domain: { name: t.name, version: t.version, chainId, verifyingContract: t.address },
      types: permitTypes,
      primaryType: "Permit",
      message: { owner: alice.address, spender: bob.address, value: 1n, nonce: 0n, deadline },
    });
    const { v, r, s } = parseSignature(signature);
    const error = await publicClient
      .simulateContract({
        account: bob,
        address: t.address,
        abi: testStablecoinAbi,
        functionName: "permit",
        args: [alice.address, bob.address, 1n, deadline, Number(v), r, s],
      })
      .catch((e: unknown) => e);
    expect(revertName(error)).toBe("PermitExpired");
  });
});

describe("the fee switch (as USDT's)", () => {
  test("only the owner sets it; a fee above 100% or with no collector is refused", async () => {
    const t = token("DAI");
    const byAlice = await publicClient
      .simulateContract({ account: alice, address: t.address, abi: testStablecoinAbi, functionName: "setFee", args: [100n, carol.address] })
      .catch((e: unknown) => e);
    expect(revertName(byAlice)).toBe("NotOwner");
    for (const args of [[10_001n, carol.address], [1n, "0x0000000000000000000000000000000000000000"]] as const) {
      const refused = await publicClient.simulateContract({ account: deployer, address: t.address, abi: testStablecoinAbi, functionName: "setFee", args }).catch((e: unknown) => e);
      expect(revertName(refused)).toBe("InvalidFee");
    }
  });

  test("on, a transfer delivers the amount less the fee, which goes to the collector in a Transfer of its own (first); off again, all of it", async () => {
    const t = token("DAI");
    const collector = privateKeyToAccount(anvilAccounts[4]).address;
    const recipient = privateKeyToAccount(anvilAccounts[5]).address;
    const owner = walletFor(deployer);
    const setFee = async (bps: bigint) =>
      publicClient.waitForTransactionReceipt({ hash: await owner.writeContract({ address: t.address, abi: testStablecoinAbi, functionName: "setFee", args: [bps, collector] }) });
    await setFee(100n);
    expect(await publicClient.readContract({ address: t.address, abi: testStablecoinAbi, functionName: "feeBps" })).toBe(100n);
    const hash = await walletFor(alice).writeContract({ address: t.address, abi: testStablecoinAbi, functionName: "transfer", args: [recipient, 1_000n] });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const transfers = parseEventLogs({ abi: testStablecoinAbi, eventName: "Transfer", logs: receipt.logs }).map((l) => [l.args.to, l.args.value]);
    expect(transfers).toEqual([
      [collector, 10n],
      [recipient, 990n],
    ]);
    expect(await balanceOf(t.address, recipient)).toBe(990n);
    expect(await balanceOf(t.address, collector)).toBe(10n);
    await setFee(0n);
    await publicClient.waitForTransactionReceipt({ hash: await walletFor(alice).writeContract({ address: t.address, abi: testStablecoinAbi, functionName: "transfer", args: [recipient, 1_000n] }) });
    expect(await balanceOf(t.address, recipient)).toBe(1_990n);
    expect(await balanceOf(t.address, collector)).toBe(10n);
  });
});
