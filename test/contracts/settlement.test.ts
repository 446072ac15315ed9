import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type Address,
  type Hex,
  type PublicClient,
  concat,
  hashTypedData,
  numberToHex,
  parseEventLogs,
  parseSignature,
  recoverTypedDataAddress,
  serializeSignature,
  zeroAddress,
} from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, type AnvilInstance, type DeployedToken, testStablecoinAbi } from "@stablepay/devchain/evm";
import {
  InvalidPaymentIdError,
  type PaymentIntent,
  PaymentTokenMismatchError,
  bytes32ToPaymentId,
  deploySettlement,
  encodePaymentTransactions,
  parsePaymentSettledLogs,
  paymentIdToBytes32,
  paymentIntentTypes,
  settlementDomain,
  signPaymentIntent,
} from "../../rails/evm/settlement/index.ts";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import { type TokenChain, freshAddress, permitTypes, revertOf, startTokenChain } from "../../harness/tokenChain.ts";

const chainId = 31_337;
const deployerKey = anvilAccounts[0];
const operatorKey = anvilAccounts[4];
const operator = privateKeyToAccount(operatorKey);
const owner = privateKeyToAccount(anvilAccounts[5]);
const alice = privateKeyToAccount(anvilAccounts[1]);
const bob = privateKeyToAccount(anvilAccounts[2]);
const strangerKey = anvilAccounts[8];
/** secp256k1's group order: `n - s` is the malleated twin of a signature's `s`. */
const secp256k1n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

let anvil: AnvilInstance;
let publicClient: PublicClient;
let token: TokenChain["token"];
let walletFor: TokenChain["walletFor"];
let balanceOf: TokenChain["balanceOf"];
let settlement: Address;

async function intentFor(t: DeployedToken, overrides: Partial<PaymentIntent> = {}): Promise<PaymentIntent> {
  const now = (await publicClient.getBlock()).timestamp;
  return {
    paymentId: paymentIdToBytes32(crypto.randomUUID()),
    merchant: freshAddress(),
    token: t.address,
    amount: 10n * 10n ** BigInt(t.decimals),
    fee: 0n,
    feeRecipient: freshAddress(),
    deadline: now + 900n,
    ...overrides,
  };
}

function sign(intent: PaymentIntent, key: Hex = operatorKey, settlementAddress: Address = settlement): Promise<Hex> {
  return signPaymentIntent({ operatorPrivateKey: key, chainId, settlementAddress, intent });
}

/** The revert `payer` would get calling `pay(intent, signature)` now. */
async function payRevert(intent: PaymentIntent, signature: Hex, payer: PrivateKeyAccount = alice) {
  const error = await publicClient
    .simulateContract({ account: payer, address: settlement, abi: paymentSettlementAbi, functionName: "pay", args: [intent, signature] })
    .catch((e: unknown) => e);
  return revertOf(error);
}

async function approveAndPay(payer: PrivateKeyAccount, intent: PaymentIntent, signature: Hex) {
  const transactions = encodePaymentTransactions({ settlementAddress: settlement, token: intent.token, intent, signature });
  const wallet = walletFor(payer);
  const approve = await wallet.sendTransaction(transactions.approve);
  expect((await publicClient.waitForTransactionReceipt({ hash: approve })).status).toBe("success");
  const pay = await wallet.sendTransaction(transactions.pay);
  return publicClient.waitForTransactionReceipt({ hash: pay });
}

beforeAll(async () => {
  ({ anvil, publicClient, token, walletFor, balanceOf } = await startTokenChain({
    chainId,
    deployerPrivateKey: deployerKey,
    fund: [
      { address: alice.address, amount: 1_000_000n },
      { address: bob.address, amount: 1_000n },
    ],
  }));
  settlement = await deploySettlement({
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

describe("paymentIdToBytes32 / bytes32ToPaymentId", () => {
  test("left-pads the uuid's 16 bytes to 32 and back", () => {
    const uuid = "0191f3a2-7c4e-7b8a-9d3e-5f6a7b8c9d0e";
    const bytes32 = "0x000000000000000000000000000000000191f3a27c4e7b8a9d3e5f6a7b8c9d0e";
    expect(paymentIdToBytes32(uuid)).toBe(bytes32);
    expect(bytes32ToPaymentId(bytes32)).toBe(uuid);
  });

  test("round-trips random uuids", () => {
    for (let i = 0; i < 100; i++) {
      const uuid = crypto.randomUUID();
      const bytes32 = paymentIdToBytes32(uuid);
      expect(bytes32).toHaveLength(66);
      expect(bytes32ToPaymentId(bytes32)).toBe(uuid);
    }
  });

  test("normalizes upper-case input to lower case", () => {
    const upper = "0191F3A2-7C4E-7B8A-9D3E-5F6A7B8C9D0E";
    expect(paymentIdToBytes32(upper)).toBe("0x000000000000000000000000000000000191f3a27c4e7b8a9d3e5f6a7b8c9d0e");
    expect(bytes32ToPaymentId("0x000000000000000000000000000000000191F3A27C4E7B8A9D3E5F6A7B8C9D0E")).toBe(upper.toLowerCase());
  });

  test.each(["", "not-a-uuid", "0191f3a27c4e7b8a9d3e5f6a7b8c9d0e", "0191f3a2-7c4e-7b8a-9d3e-5f6a7b8c9d0", "0191f3a2-7c4e-7b8a-9d3e-5f6a7b8c9d0g"])(
    "rejects %p",
    (input) => {
      expect(() => paymentIdToBytes32(input)).toThrow(InvalidPaymentIdError);
    },
  );

  test("returns null for ids this service did not issue", () => {
    // High 16 bytes not zero.
    expect(bytes32ToPaymentId("0x000000000000000000000000000000010191f3a27c4e7b8a9d3e5f6a7b8c9d0e")).toBeNull();
    expect(bytes32ToPaymentId(`0x${"ff".repeat(32)}`)).toBeNull();
    // Not 32 bytes.
    expect(bytes32ToPaymentId("0x0191f3a27c4e7b8a9d3e5f6a7b8c9d0e")).toBeNull();
    expect(bytes32ToPaymentId(`0x${"00".repeat(33)}`)).toBeNull();
  });
});

describe("PaymentSettlement", () => {
  test("deploySettlement returns the checksummed address; operator and owner are set", async () => {
    expect(settlement).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(settlement).not.toBe(settlement.toLowerCase() as Address);
    const contract = { address: settlement, abi: paymentSettlementAbi } as const;
    expect(await publicClient.readContract({ ...contract, functionName: "operator" })).toBe(operator.address);
    expect(await publicClient.readContract({ ...contract, functionName: "owner" })).toBe(owner.address);
  });

  for (const [symbol, amount, fee] of [
    ["USDC", 125_500_000n, 1_255_000n],
    ["DAI", 125_500_000_000_000_000_000n, 1_255_000_000_000_000_001n],
  ] as const) {
    test(`approve + pay in ${symbol} pays merchant and fee recipient exactly and emits one PaymentSettled`, async () => {
      const t = token(symbol);
      const uuid = crypto.randomUUID();
      const intent = await intentFor(t, { paymentId: paymentIdToBytes32(uuid), amount, fee });
      const payerBefore = await balanceOf(t.address, alice.address);

      const receipt = await approveAndPay(alice, intent, await sign(intent));

      expect(receipt.status).toBe("success");
      expect(await balanceOf(t.address, intent.merchant)).toBe(amount - fee);
      expect(await balanceOf(t.address, intent.feeRecipient)).toBe(fee);
      expect(await balanceOf(t.address, alice.address)).toBe(payerBefore - amount);
      expect(await balanceOf(t.address, settlement)).toBe(0n);

      const settled = parsePaymentSettledLogs(receipt.logs);
      expect(settled).toEqual([
        {
          paymentId: uuid,
          payer: alice.address,
          token: t.address,
          merchant: intent.merchant,
          amount,
          fee,
          logIndex: 2,
        },
      ]);
      expect(parsePaymentSettledLogs(receipt.logs, { settlementAddress: settlement })).toEqual(settled);
      expect(parsePaymentSettledLogs(receipt.logs, { settlementAddress: t.address })).toEqual([]);
      expect(
        await publicClient.readContract({ address: settlement, abi: paymentSettlementAbi, functionName: "isProcessed", args: [intent.paymentId] }),
      ).toBe(true);
    });
  }

  test("a zero fee sends everything to the merchant in a single transfer", async () => {
    const t = token("USDT");
    const intent = await intentFor(t, { amount: 7_000_001n, fee: 0n });
    const receipt = await approveAndPay(alice, intent, await sign(intent));
    const transfers = parseEventLogs({ abi: testStablecoinAbi, eventName: "Transfer", logs: receipt.logs });
    expect(transfers.map((log) => log.args)).toEqual([{ from: alice.address, to: intent.merchant, value: 7_000_001n }]);
    expect(await balanceOf(t.address, intent.merchant)).toBe(7_000_001n);
    expect(await balanceOf(t.address, intent.feeRecipient)).toBe(0n);
  });

  test("a fee equal to the amount sends everything to the fee recipient in a single transfer", async () => {
    const t = token("USDC");
    const intent = await intentFor(t, { amount: 3n, fee: 3n });
    const receipt = await approveAndPay(alice, intent, await sign(intent));
    expect(receipt.status).toBe("success");
    const transfers = parseEventLogs({ abi: testStablecoinAbi, eventName: "Transfer", logs: receipt.logs });
    expect(transfers.map((log) => log.args)).toEqual([{ from: alice.address, to: intent.feeRecipient, value: 3n }]);
    expect(await balanceOf(t.address, intent.merchant)).toBe(0n);
    expect(await balanceOf(t.address, intent.feeRecipient)).toBe(3n);
  });

  for (const symbol of ["USDC", "DAI"] as const) {
    test(`payWithPermit in ${symbol} works with an EIP-2612 permit and no prior approve`, async () => {
      const t = token(symbol);
      const amount = 42n * 10n ** BigInt(t.decimals);
      const fee = 42n * 10n ** BigInt(t.decimals - 2);
      const uuid = crypto.randomUUID();
      const intent = await intentFor(t, { paymentId: paymentIdToBytes32(uuid), amount, fee });
      const signature = await sign(intent);
      const allowance = () =>
        publicClient.readContract({ address: t.address, abi: testStablecoinAbi, functionName: "allowance", args: [bob.address, settlement] });
      expect(await allowance()).toBe(0n);

      const nonce = await publicClient.readContract({ address: t.address, abi: testStablecoinAbi, functionName: "nonces", args: [bob.address] });
      const permitDeadline = intent.deadline;
      const permit = parseSignature(
        await bob.signTypedData({
          domain: { name: t.name, version: t.version, chainId, verifyingContract: t.address },
          types: permitTypes,
          primaryType: "Permit",
          message: { owner: bob.address, spender: settlement, value: amount, nonce, deadline: permitDeadline },
        }),
      );
      const bobBefore = await balanceOf(t.address, bob.address);

      const hash = await walletFor(bob).writeContract({
        address: settlement,
        abi: paymentSettlementAbi,
        functionName: "payWithPermit",
        args: [intent, signature, permitDeadline, Number(permit.v), permit.r, permit.s],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });

      expect(receipt.status).toBe("success");
      expect(await balanceOf(t.address, intent.merchant)).toBe(amount - fee);
      expect(await balanceOf(t.address, intent.feeRecipient)).toBe(fee);
      expect(await balanceOf(t.address, bob.address)).toBe(bobBefore - amount);
      expect(await allowance()).toBe(0n);
      expect(parsePaymentSettledLogs(receipt.logs).map(({ logIndex: _, ...rest }) => rest)).toEqual([
        { paymentId: uuid, payer: bob.address, token: t.address, merchant: intent.merchant, amount, fee },
      ]);
    });
  }

  test("payWithPermit still settles when someone submitted the permit first", async () => {
    const t = token("USDC");
    const intent = await intentFor(t, { amount: 5_000_000n, fee: 50_000n });
    const nonce = await publicClient.readContract({ address: t.address, abi: testStablecoinAbi, functionName: "nonces", args: [bob.address] });
    const { v, r, s } = parseSignature(
      await bob.signTypedData({
        domain: { name: t.name, version: t.version, chainId, verifyingContract: t.address },
        types: permitTypes,
        primaryType: "Permit",
        message: { owner: bob.address, spender: settlement, value: intent.amount, nonce, deadline: intent.deadline },
      }),
    );
    const permitArgs = [bob.address, settlement, intent.amount, intent.deadline, Number(v), r, s] as const;
    // A front-runner (alice) uses the permit; the allowance now exists, the permit's nonce is spent.
    const frontRun = await walletFor(alice).writeContract({ address: t.address, abi: testStablecoinAbi, functionName: "permit", args: permitArgs });
    await publicClient.waitForTransactionReceipt({ hash: frontRun });

    const hash = await walletFor(bob).writeContract({
      address: settlement,
      abi: paymentSettlementAbi,
      functionName: "payWithPermit",
      args: [intent, await sign(intent), intent.deadline, Number(v), r, s],
    });
    expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
    expect(await balanceOf(t.address, intent.merchant)).toBe(4_950_000n);
    expect(await balanceOf(t.address, intent.feeRecipient)).toBe(50_000n);
  });

  test("payWithPermit with a bad permit and no allowance reverts TransferFailed", async () => {
    const t = token("USDC");
    const payer = privateKeyToAccount(anvilAccounts[9]);
    const intent = await intentFor(t, { amount: 1n });
    const error = await publicClient
      .simulateContract({
        account: payer,
        address: settlement,
        abi: paymentSettlementAbi,
        functionName: "payWithPermit",
        args: [intent, await sign(intent), intent.deadline, 27, `0x${"11".repeat(32)}`, `0x${"22".repeat(32)}`],
      })
      .catch((e: unknown) => e);
    expect(revertOf(error)).toEqual({ name: "TransferFailed", args: undefined });
  });

  test("an expired intent reverts IntentExpired", async () => {
    const now = (await publicClient.getBlock()).timestamp;
    const intent = await intentFor(token("USDC"), { deadline: now - 1n });
    expect(await payRevert(intent, await sign(intent))).toEqual({ name: "IntentExpired", args: undefined });
  });

  test("a replayed intent reverts PaymentAlreadyProcessed", async () => {
    const t = token("USDC");
    const intent = await intentFor(t, { amount: 2_000_000n, fee: 20_000n });
    const signature = await sign(intent);
    await approveAndPay(alice, intent, signature);
    expect(await payRevert(intent, signature)).toEqual({ name: "PaymentAlreadyProcessed", args: [intent.paymentId] });
    // Also from another payer, and with a fresh signature over a different amount.
    expect(await payRevert(intent, signature, bob)).toEqual({ name: "PaymentAlreadyProcessed", args: [intent.paymentId] });
    const other = { ...intent, amount: 1n, fee: 0n };
    expect(await payRevert(other, await sign(other))).toEqual({ name: "PaymentAlreadyProcessed", args: [intent.paymentId] });
    expect(await balanceOf(t.address, intent.merchant)).toBe(1_980_000n);
  });

  test("a signature by anyone but the operator reverts InvalidSignature", async () => {
    const intent = await intentFor(token("USDC"));
    expect(await payRevert(intent, await sign(intent, strangerKey))).toEqual({ name: "InvalidSignature", args: undefined });
  });

  test("an intent signed for another settlement contract reverts InvalidSignature", async () => {
    const intent = await intentFor(token("USDC"));
    const signature = await sign(intent, operatorKey, freshAddress());
    expect(await payRevert(intent, signature)).toEqual({ name: "InvalidSignature", args: undefined });
  });

  test.each([
    ["amount", (i: PaymentIntent) => ({ ...i, amount: i.amount - 1n })],
    ["merchant", (i: PaymentIntent) => ({ ...i, merchant: alice.address })],
    ["fee", (i: PaymentIntent) => ({ ...i, fee: i.fee + 1n })],
    ["fee recipient", (i: PaymentIntent) => ({ ...i, feeRecipient: alice.address })],
    ["token", (i: PaymentIntent) => ({ ...i, token: token("USDT").address })],
    ["deadline", (i: PaymentIntent) => ({ ...i, deadline: i.deadline + 1n })],
    ["payment id", (i: PaymentIntent) => ({ ...i, paymentId: paymentIdToBytes32(crypto.randomUUID()) })],
  ] as const)("a tampered %s reverts InvalidSignature", async (_, tamper) => {
    const intent = await intentFor(token("USDC"), { amount: 10_000_000n, fee: 100_000n });
    const signature = await sign(intent);
    expect(await payRevert(tamper(intent), signature)).toEqual({ name: "InvalidSignature", args: undefined });
  });

  test("malformed and malleable signatures revert InvalidSignature", async () => {
    const intent = await intentFor(token("USDC"));
    const signature = await sign(intent);
    const { r, s, yParity } = parseSignature(signature);
    // The same signature with s' = n - s and the other parity recovers the same signer.
    const malleated = serializeSignature({ r, s: numberToHex(secp256k1n - BigInt(s), { size: 32 }), yParity: yParity === 0 ? 1 : 0 });
    const typedData = { domain: settlementDomain(chainId, settlement), types: paymentIntentTypes, primaryType: "PaymentIntent", message: intent } as const;
    expect(await recoverTypedDataAddress({ ...typedData, signature: malleated })).toBe(operator.address);

    // A payer without allowance: a signature that passes the check fails later, at the transfer.
    const payer = privateKeyToAccount(anvilAccounts[9]);
    expect(await payRevert(intent, signature, payer)).toEqual({ name: "TransferFailed", args: undefined });
    for (const bad of [malleated, signature.slice(0, 130) as Hex, concat([signature, "0x00"]), "0x" as Hex]) {
      expect(await payRevert(intent, bad, payer)).toEqual({ name: "InvalidSignature", args: undefined });
    }
  });

  test("with no operator set, no signature is accepted", async () => {
    const unset = await deploySettlement({
      rpcUrl: anvil.rpcUrl,
      chainId,
      deployerPrivateKey: deployerKey,
      operator: zeroAddress,
      owner: owner.address,
    });
    const intent = await intentFor(token("USDC"));
    // r = s = 0 and other invalid signatures make ecrecover return address(0).
    for (const bad of [`0x${"00".repeat(64)}1b`, `0x${"11".repeat(64)}1c`] as const) {
      const error = await publicClient
        .simulateContract({ account: alice, address: unset, abi: paymentSettlementAbi, functionName: "pay", args: [intent, bad] })
        .catch((e: unknown) => e);
      expect(revertOf(error)).toEqual({ name: "InvalidSignature", args: undefined });
    }
  });

  test("a fee above the amount, or a zero amount, reverts InvalidAmount", async () => {
    const t = token("USDC");
    const feeTooHigh = await intentFor(t, { amount: 1_000_000n, fee: 1_000_001n });
    expect(await payRevert(feeTooHigh, await sign(feeTooHigh))).toEqual({ name: "InvalidAmount", args: undefined });
    const zero = await intentFor(t, { amount: 0n, fee: 0n });
    expect(await payRevert(zero, await sign(zero))).toEqual({ name: "InvalidAmount", args: undefined });
  });

  test("paying without an allowance reverts TransferFailed", async () => {
    const intent = await intentFor(token("DAI"));
    expect(await payRevert(intent, await sign(intent), privateKeyToAccount(anvilAccounts[9]))).toEqual({
      name: "TransferFailed",
      args: undefined,
    });
  });

  test("hashIntent equals viem's hashTypedData", async () => {
    const intent = await intentFor(token("DAI"), { amount: 123_456_789_000_000_000_000n, fee: 987_654_321n });
    const onChain = await publicClient.readContract({ address: settlement, abi: paymentSettlementAbi, functionName: "hashIntent", args: [intent] });
    const offChain = hashTypedData({
      domain: settlementDomain(chainId, settlement),
      types: paymentIntentTypes,
      primaryType: "PaymentIntent",
      message: intent,
    });
    expect(onChain).toBe(offChain);
  });

  test("encodePaymentTransactions targets the token and the settlement contract", async () => {
    const t = token("USDC");
    const intent = await intentFor(t);
    const signature = await sign(intent);
    const transactions = encodePaymentTransactions({ settlementAddress: settlement, token: t.address, intent, signature });
    expect(transactions.approve.to).toBe(t.address);
    // approve(address,uint256)
    expect(transactions.approve.data.slice(0, 10)).toBe("0x095ea7b3");
    expect(transactions.pay.to).toBe(settlement);
    expect(() =>
      encodePaymentTransactions({ settlementAddress: settlement, token: token("USDT").address, intent, signature }),
    ).toThrow(PaymentTokenMismatchError);
  });

  test("only the owner can change the operator; old-operator intents then stop settling", async () => {
    const isolated = await deploySettlement({
      rpcUrl: anvil.rpcUrl,
      chainId,
      deployerPrivateKey: deployerKey,
      operator: operator.address,
      owner: owner.address,
    });
    const contract = { address: isolated, abi: paymentSettlementAbi } as const;
    const notOwner = await publicClient
      .simulateContract({ ...contract, account: operator, functionName: "setOperator", args: [alice.address] })
      .catch((e: unknown) => e);
    expect(revertOf(notOwner)).toEqual({ name: "NotOwner", args: undefined });

    const newOperator = privateKeyToAccount(strangerKey);
    const hash = await walletFor(owner).writeContract({ ...contract, functionName: "setOperator", args: [newOperator.address] });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [changed] = parseEventLogs({ abi: paymentSettlementAbi, eventName: "OperatorChanged", logs: receipt.logs });
    expect(changed?.args).toEqual({ previousOperator: operator.address, newOperator: newOperator.address });
    expect(await publicClient.readContract({ ...contract, functionName: "operator" })).toBe(newOperator.address);

    const t = token("USDC");
    const intent = await intentFor(t, { amount: 1_000n });
    const approve = await walletFor(alice).writeContract({
      address: t.address,
      abi: testStablecoinAbi,
      functionName: "approve",
      args: [isolated, intent.amount],
    });
    await publicClient.waitForTransactionReceipt({ hash: approve });
    const simulatePay = (signature: Hex) =>
      publicClient.simulateContract({ ...contract, account: alice, functionName: "pay", args: [intent, signature] });
    const stale = await simulatePay(await sign(intent, operatorKey, isolated)).catch((e: unknown) => e);
    expect(revertOf(stale)).toEqual({ name: "InvalidSignature", args: undefined });
    await simulatePay(await sign(intent, strangerKey, isolated));
  });
});
