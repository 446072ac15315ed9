import { expect, test } from "bun:test";
import { randomBytes, randomUUID } from "node:crypto";
import { type Address, type Hex, getAddress, getContractAddress, encodeAbiParameters, hashTypedData, keccak256 } from "viem";
import { signTypedData } from "viem/accounts";
import { depositForwarderBytecode } from "../../../../contracts/artifacts/index.ts";
import { computeDepositAddress, paymentIdToBytes32, signPaymentIntent } from "../../../../rails/evm/settlement/index.ts";
import { paymentIntentDigest } from "../../../../rails/evm/settlement/signPaymentIntent.ts";
import { paymentIntentTypes, settlementDomain } from "../../../../rails/evm/settlement/settlementDomain.ts";

const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}` as Hex;
const randomAddress = (checksummed: boolean) => (checksummed ? getAddress(hex(20)) : (hex(20).toLowerCase() as Address));
const big = () => BigInt(hex(1 + (randomBytes(1)[0]! % 32)));

// The precomputed digest and signature are exactly viem's EIP-712 ones (signatures are
// deterministic): the contract, and every earlier signature, see no difference.
test("the intent's digest and signature equal viem's hashTypedData and signTypedData", async () => {
  for (let i = 0; i < 200; i++) {
    const privateKey = hex(32);
    const chainId = [1, 137, 8453, 31337, 2 ** 40][i % 5]!;
    const settlementAddress = randomAddress(i % 2 === 0);
    const intent = {
      paymentId: paymentIdToBytes32(randomUUID()),
      merchant: randomAddress(i % 3 === 0),
      token: randomAddress(i % 2 === 1),
      amount: big(),
      fee: i % 4 === 0 ? 0n : big(),
      feeRecipient: randomAddress(true),
      deadline: BigInt(1_700_000_000 + i),
    };
    const typed = { domain: settlementDomain(chainId, settlementAddress), types: paymentIntentTypes, primaryType: "PaymentIntent" as const, message: intent };
    expect(paymentIntentDigest(chainId, settlementAddress, intent)).toBe(hashTypedData(typed));
    expect(await signPaymentIntent({ operatorPrivateKey: privateKey, chainId, settlementAddress, intent })).toBe(await signTypedData({ privateKey, ...typed }));
  }
});

test("out-of-range values are refused, as viem's encoder refuses them", () => {
  const intent = { paymentId: paymentIdToBytes32(randomUUID()), merchant: randomAddress(true), token: randomAddress(true), amount: 1n, fee: 0n, feeRecipient: randomAddress(true), deadline: 1n };
  const settlement = randomAddress(true);
  expect(() => paymentIntentDigest(1, settlement, { ...intent, amount: -1n })).toThrow();
  expect(() => paymentIntentDigest(1, settlement, { ...intent, fee: 2n ** 256n })).toThrow();
  expect(() => paymentIntentDigest(1, settlement, { ...intent, merchant: "0x1234" as Address })).toThrow();
  expect(() => paymentIntentDigest(1, settlement, { ...intent, paymentId: "0x12" })).toThrow();
});

test("the deposit address with the init-code hash computed once equals CREATE2 over the full bytecode", () => {
  for (let i = 0; i < 50; i++) {
    const factory = randomAddress(true);
    const paymentId = randomUUID();
    const merchantWallet = randomAddress(true);
    const salt = keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "address" }], [paymentIdToBytes32(paymentId), merchantWallet]));
    expect(computeDepositAddress({ factory, paymentId, merchantWallet })).toBe(getContractAddress({ opcode: "CREATE2", from: factory, salt, bytecode: depositForwarderBytecode }));
  }
});
