import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Address, type PublicClient, keccak256, parseEventLogs } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, type AnvilInstance, type DeployedToken, testStablecoinAbi } from "@stablepay/devchain/evm";
import { computeDepositAddress, deployForwarderFactory, paymentIdToBytes32 } from "../../rails/evm/settlement/index.ts";
import { depositForwarderAbi, depositForwarderBytecode, forwarderFactoryAbi } from "../../contracts/artifacts/index.ts";
import { type TokenChain, freshAddress, revertName, startTokenChain } from "../../harness/tokenChain.ts";

const chainId = 31_337;
const deployerKey = anvilAccounts[0];
const customer = privateKeyToAccount(anvilAccounts[1]);
const operator = privateKeyToAccount(anvilAccounts[4]);
const owner = privateKeyToAccount(anvilAccounts[5]);
const stranger = privateKeyToAccount(anvilAccounts[8]);

let anvil: AnvilInstance;
let publicClient: PublicClient;
let token: TokenChain["token"];
let walletFor: TokenChain["walletFor"];
let balanceOf: TokenChain["balanceOf"];
let factory: Address;

/** A customer's plain ERC-20 transfer to the deposit address, as a wallet scanning the QR code sends it. */
async function deposit(t: DeployedToken, to: Address, amount: bigint): Promise<void> {
  const hash = await walletFor(customer).writeContract({ address: t.address, abi: testStablecoinAbi, functionName: "transfer", args: [to, amount] });
  expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
}

type Sweep = { paymentId: string; merchantWallet: Address; token: Address; to: Address; amount: bigint };

async function deployAndSweep(sweep: Sweep) {
  const hash = await walletFor(operator).writeContract({
    address: factory,
    abi: forwarderFactoryAbi,
    functionName: "deployAndSweep",
    args: [paymentIdToBytes32(sweep.paymentId), sweep.merchantWallet, sweep.token, sweep.to, sweep.amount],
  });
  return publicClient.waitForTransactionReceipt({ hash });
}

async function sweepRevert(sweep: Sweep, account: PrivateKeyAccount = operator): Promise<string | undefined> {
  const error = await publicClient
    .simulateContract({
      account,
      address: factory,
      abi: forwarderFactoryAbi,
      functionName: "deployAndSweep",
      args: [paymentIdToBytes32(sweep.paymentId), sweep.merchantWallet, sweep.token, sweep.to, sweep.amount],
    })
    .catch((e: unknown) => e);
  return revertName(error);
}

beforeAll(async () => {
  ({ anvil, publicClient, token, walletFor, balanceOf } = await startTokenChain({
    chainId,
    deployerPrivateKey: deployerKey,
    fund: [{ address: customer.address, amount: 1_000_000n }],
  }));
  factory = await deployForwarderFactory({
    rpcUrl: anvil.rpcUrl,
    chainId,
    deployerPrivateKey: deployerKey,
    operator: operator.address,
    owner: owner.address,
  });
});

afterAll(async () => {
  await anvil?.stop();
});

describe("ForwarderFactory", () => {
  test("deployForwarderFactory returns the checksummed address; operator and owner are set", async () => {
    expect(factory).not.toBe(factory.toLowerCase() as Address);
    const contract = { address: factory, abi: forwarderFactoryAbi } as const;
    expect(await publicClient.readContract({ ...contract, functionName: "operator" })).toBe(operator.address);
    expect(await publicClient.readContract({ ...contract, functionName: "owner" })).toBe(owner.address);
  });

  test("computeDepositAddress (offline) equals the factory's computeAddress", async () => {
    const merchantWallet = freshAddress();
    const addresses = new Set<Address>();
    for (let i = 0; i < 10; i++) {
      const paymentId = crypto.randomUUID();
      for (const wallet of [merchantWallet, freshAddress()]) {
        const offline = computeDepositAddress({ factory, paymentId, merchantWallet: wallet });
        const onChain = await publicClient.readContract({
          address: factory,
          abi: forwarderFactoryAbi,
          functionName: "computeAddress",
          args: [paymentIdToBytes32(paymentId), wallet],
        });
        expect(offline).toBe(onChain);
        addresses.add(offline);
      }
    }
    // Every (payment, merchant wallet) pair gets its own address.
    expect(addresses.size).toBe(20);
  });

  test("computeDepositAddress is pinned for fixed inputs", () => {
    // A tripwire: editing DepositForwarder.sol (even a comment, via the metadata hash) changes
    // its init code, so factories deployed before the edit need their own forwarderInitCodeHash.
    expect(keccak256(depositForwarderBytecode)).toBe("0x83cd63498e4c45b18e2a7b320282c0bd6531ca6d3cdb3a45b444d6dec510b8ee");
    const fixed = {
      factory: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      paymentId: "0191f3a2-7c4e-7b8a-9d3e-5f6a7b8c9d0e",
      merchantWallet: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    } as const;
    expect(computeDepositAddress(fixed)).toBe("0xCd03Cf81A2B73DbC9F91AEe36834fb823cd2B441");
    expect(computeDepositAddress({ ...fixed, factory: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512" })).not.toBe(
      "0xCd03Cf81A2B73DbC9F91AEe36834fb823cd2B441",
    );
  });

  test("the factory's forwarderInitCodeHash gives the same address", async () => {
    const forwarderInitCodeHash = await publicClient.readContract({
      address: factory,
      abi: forwarderFactoryAbi,
      functionName: "forwarderInitCodeHash",
    });
    expect(forwarderInitCodeHash).toBe(keccak256(depositForwarderBytecode));
    const parameters = { factory, paymentId: crypto.randomUUID(), merchantWallet: freshAddress() };
    expect(computeDepositAddress({ ...parameters, forwarderInitCodeHash })).toBe(computeDepositAddress(parameters));
  });

  for (const symbol of ["USDC", "DAI"] as const) {
    test(`${symbol} sent to the counterfactual address is swept to the merchant wallet in one transaction`, async () => {
      const t = token(symbol);
      const paymentId = crypto.randomUUID();
      const merchantWallet = freshAddress();
      const depositAddress = computeDepositAddress({ factory, paymentId, merchantWallet });
      const amount = 19_990_001n * 10n ** BigInt(t.decimals - 6);

      await deposit(t, depositAddress, amount);
      expect(await publicClient.getCode({ address: depositAddress })).toBeUndefined();
      expect(await balanceOf(t.address, depositAddress)).toBe(amount);

      const receipt = await deployAndSweep({ paymentId, merchantWallet, token: t.address, to: merchantWallet, amount });

      expect(receipt.status).toBe("success");
      expect(await balanceOf(t.address, merchantWallet)).toBe(amount);
      expect(await balanceOf(t.address, depositAddress)).toBe(0n);
      expect(await publicClient.getCode({ address: depositAddress })).toMatch(/^0x[0-9a-f]+$/);
      expect(await publicClient.readContract({ address: depositAddress, abi: depositForwarderAbi, functionName: "factory" })).toBe(factory);

      const swept = parseEventLogs({ abi: forwarderFactoryAbi, eventName: "Swept", logs: receipt.logs });
      expect(swept.map((log) => ({ address: log.address, args: log.args }))).toEqual([
        {
          address: factory.toLowerCase() as Address,
          args: { paymentId: paymentIdToBytes32(paymentId), forwarder: depositAddress, token: t.address, to: merchantWallet, amount },
        },
      ]);
      const transfers = parseEventLogs({ abi: testStablecoinAbi, eventName: "Transfer", logs: receipt.logs });
      expect(transfers.map((log) => log.args)).toEqual([{ from: depositAddress, to: merchantWallet, value: amount }]);
    });
  }

  test("a second deposit to an already deployed forwarder is swept too", async () => {
    const t = token("USDT");
    const paymentId = crypto.randomUUID();
    const merchantWallet = freshAddress();
    const depositAddress = computeDepositAddress({ factory, paymentId, merchantWallet });

    await deposit(t, depositAddress, 60_000_000n);
    await deployAndSweep({ paymentId, merchantWallet, token: t.address, to: merchantWallet, amount: 60_000_000n });
    const code = await publicClient.getCode({ address: depositAddress });

    // The customer underpaid and tops up; the forwarder is reused, not redeployed.
    await deposit(t, depositAddress, 40_000_001n);
    const receipt = await deployAndSweep({ paymentId, merchantWallet, token: t.address, to: merchantWallet, amount: 40_000_001n });
    expect(receipt.status).toBe("success");
    expect(await publicClient.getCode({ address: depositAddress })).toBe(code);
    expect(await balanceOf(t.address, merchantWallet)).toBe(100_000_001n);
    expect(await balanceOf(t.address, depositAddress)).toBe(0n);
    const [swept] = parseEventLogs({ abi: forwarderFactoryAbi, eventName: "Swept", logs: receipt.logs });
    expect(swept?.args.amount).toBe(40_000_001n);
  });

  test("sweeping part of the balance leaves the rest in the forwarder", async () => {
    const t = token("USDC");
    const paymentId = crypto.randomUUID();
    const merchantWallet = freshAddress();
    const depositAddress = computeDepositAddress({ factory, paymentId, merchantWallet });
    await deposit(t, depositAddress, 10_000_000n);
    await deployAndSweep({ paymentId, merchantWallet, token: t.address, to: merchantWallet, amount: 7_500_000n });
    expect(await balanceOf(t.address, merchantWallet)).toBe(7_500_000n);
    expect(await balanceOf(t.address, depositAddress)).toBe(2_500_000n);
  });

  test("a call by anyone but the operator reverts NotOperator", async () => {
    const t = token("USDC");
    const paymentId = crypto.randomUUID();
    const merchantWallet = freshAddress();
    const depositAddress = computeDepositAddress({ factory, paymentId, merchantWallet });
    await deposit(t, depositAddress, 1_000_000n);
    const sweep = { paymentId, merchantWallet, token: t.address, to: stranger.address, amount: 1_000_000n };
    expect(await sweepRevert(sweep, stranger)).toBe("NotOperator");
    expect(await sweepRevert(sweep, owner)).toBe("NotOperator");
  });

  test("sweeping more than the balance reverts", async () => {
    const t = token("DAI");
    const paymentId = crypto.randomUUID();
    const merchantWallet = freshAddress();
    const depositAddress = computeDepositAddress({ factory, paymentId, merchantWallet });
    await deposit(t, depositAddress, 5n * 10n ** 18n);
    const sweep = { paymentId, merchantWallet, token: t.address, to: merchantWallet, amount: 5n * 10n ** 18n + 1n };
    // Both before the forwarder exists and after.
    expect(await sweepRevert(sweep)).toBe("TransferFailed");
    await deployAndSweep({ ...sweep, amount: 1n });
    expect(await sweepRevert({ ...sweep, amount: 5n * 10n ** 18n })).toBe("TransferFailed");
    expect(await balanceOf(t.address, depositAddress)).toBe(5n * 10n ** 18n - 1n);
  });

  test("a sweep to a refund address pays the refund address, not the merchant", async () => {
    const t = token("USDC");
    const paymentId = crypto.randomUUID();
    const merchantWallet = freshAddress();
    const refundAddress = freshAddress();
    const depositAddress = computeDepositAddress({ factory, paymentId, merchantWallet });
    await deposit(t, depositAddress, 3_141_592n);
    const receipt = await deployAndSweep({ paymentId, merchantWallet, token: t.address, to: refundAddress, amount: 3_141_592n });
    expect(receipt.status).toBe("success");
    expect(await balanceOf(t.address, refundAddress)).toBe(3_141_592n);
    expect(await balanceOf(t.address, merchantWallet)).toBe(0n);
    const [swept] = parseEventLogs({ abi: forwarderFactoryAbi, eventName: "Swept", logs: receipt.logs });
    expect(swept?.args).toEqual({
      paymentId: paymentIdToBytes32(paymentId),
      forwarder: depositAddress,
      token: t.address,
      to: refundAddress,
      amount: 3_141_592n,
    });
  });

  test("a deployed forwarder refuses a sweep from anyone but its factory", async () => {
    const t = token("USDC");
    const paymentId = crypto.randomUUID();
    const merchantWallet = freshAddress();
    const depositAddress = computeDepositAddress({ factory, paymentId, merchantWallet });
    await deposit(t, depositAddress, 2n);
    await deployAndSweep({ paymentId, merchantWallet, token: t.address, to: merchantWallet, amount: 1n });
    for (const account of [operator, stranger]) {
      const error = await publicClient
        .simulateContract({ account, address: depositAddress, abi: depositForwarderAbi, functionName: "sweep", args: [t.address, account.address, 1n] })
        .catch((e: unknown) => e);
      expect(revertName(error)).toBe("NotFactory");
    }
  });

  test("only the owner can change the operator", async () => {
    const isolated = await deployForwarderFactory({
      rpcUrl: anvil.rpcUrl,
      chainId,
      deployerPrivateKey: deployerKey,
      operator: operator.address,
      owner: owner.address,
    });
    const contract = { address: isolated, abi: forwarderFactoryAbi } as const;
    const error = await publicClient
      .simulateContract({ ...contract, account: operator, functionName: "setOperator", args: [stranger.address] })
      .catch((e: unknown) => e);
    expect(revertName(error)).toBe("NotOwner");

    const hash = await walletFor(owner).writeContract({ ...contract, functionName: "setOperator", args: [stranger.address] });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [changed] = parseEventLogs({ abi: forwarderFactoryAbi, eventName: "OperatorChanged", logs: receipt.logs });
    expect(changed?.args).toEqual({ previousOperator: operator.address, newOperator: stranger.address });
    expect(await publicClient.readContract({ ...contract, functionName: "operator" })).toBe(stranger.address);
  });
});

describe("native coin at a deposit address", () => {
  const sendEth = async (to: Address, value: bigint) => {
    const hash = await walletFor(customer).sendTransaction({ to, value });
    return publicClient.waitForTransactionReceipt({ hash });
  };
  const sweepNative = async (paymentId: string, merchantWallet: Address, to: Address, amount: bigint, account: PrivateKeyAccount = operator) => {
    const args = [paymentIdToBytes32(paymentId), merchantWallet, to, amount] as const;
    const refused = await publicClient.simulateContract({ account, address: factory, abi: forwarderFactoryAbi, functionName: "deployAndSweepNative", args }).catch((e: unknown) => e);
    if (revertName(refused)) return revertName(refused);
    const hash = await walletFor(account).writeContract({ address: factory, abi: forwarderFactoryAbi, functionName: "deployAndSweepNative", args });
    return publicClient.waitForTransactionReceipt({ hash });
  };

  test("sent before the forwarder exists, it is kept by the deployment and swept to the merchant; sent after, taken and swept too", async () => {
    const paymentId = crypto.randomUUID();
    const merchantWallet = freshAddress();
    const depositAddress = computeDepositAddress({ factory, paymentId, merchantWallet });
    await sendEth(depositAddress, 10n ** 17n);
    const first = await sweepNative(paymentId, merchantWallet, merchantWallet, 10n ** 17n);
    if (typeof first !== "object") throw new Error(`reverted: ${first}`);
    expect(first.status).toBe("success");
    expect(await publicClient.getCode({ address: depositAddress })).toMatch(/^0x[0-9a-f]+$/);
    expect(await publicClient.getBalance({ address: merchantWallet })).toBe(10n ** 17n);
    expect(await publicClient.getBalance({ address: depositAddress })).toBe(0n);
    const [swept] = parseEventLogs({ abi: forwarderFactoryAbi, eventName: "SweptNative", logs: first.logs });
    expect(swept?.args).toEqual({ paymentId: paymentIdToBytes32(paymentId), forwarder: depositAddress, to: merchantWallet, amount: 10n ** 17n });

    // Deployed now: `receive()` takes it.
    expect((await sendEth(depositAddress, 3n)).status).toBe("success");
    const refundAddress = freshAddress();
    await sweepNative(paymentId, merchantWallet, refundAddress, 3n);
    expect(await publicClient.getBalance({ address: refundAddress })).toBe(3n);
  });

  test("only the operator, never more than is there; a deployed forwarder takes the order from its factory only", async () => {
    const paymentId = crypto.randomUUID();
    const merchantWallet = freshAddress();
    const depositAddress = computeDepositAddress({ factory, paymentId, merchantWallet });
    await sendEth(depositAddress, 1_000n);
    expect(await sweepNative(paymentId, merchantWallet, stranger.address, 1_000n, stranger)).toBe("NotOperator");
    expect(await sweepNative(paymentId, merchantWallet, merchantWallet, 1_001n)).toBe("TransferFailed");
    await sweepNative(paymentId, merchantWallet, merchantWallet, 1n);
    const error = await publicClient
      .simulateContract({ account: stranger, address: depositAddress, abi: depositForwarderAbi, functionName: "sweep", args: ["0x0000000000000000000000000000000000000000", stranger.address, 999n] })
      .catch((e: unknown) => e);
    expect(revertName(error)).toBe("NotFactory");
    expect(await publicClient.getBalance({ address: depositAddress })).toBe(999n);
  });
});
