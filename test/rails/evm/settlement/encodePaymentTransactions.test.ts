import { expect, test } from "bun:test";
import { randomBytes, randomUUID } from "node:crypto";
import { encodeFunctionData, erc20Abi, getAddress, type Hex } from "viem";
import { paymentSettlementAbi } from "../../../../contracts/artifacts/index.ts";
import { encodePaymentTransactions, paymentIdToBytes32 } from "../../../../rails/evm/settlement/index.ts";

const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}` as Hex;

// The calls are encoded from functions resolved once: byte for byte what viem encodes from the whole ABI.
test("approve and pay encode exactly as viem's encodeFunctionData over the full ABIs", () => {
  for (let i = 0; i < 50; i++) {
    const token = getAddress(hex(20));
    const settlementAddress = getAddress(hex(20));
    const intent = {
      paymentId: paymentIdToBytes32(randomUUID()),
      merchant: getAddress(hex(20)),
      token,
      amount: BigInt(hex(1 + (i % 32))),
      fee: BigInt(i),
      feeRecipient: getAddress(hex(20)),
      deadline: 1_900_000_000n + BigInt(i),
    };
    const signature = hex(65);
    const txs = encodePaymentTransactions({ settlementAddress, token, intent, signature });
    expect(txs.approve).toEqual({ to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [settlementAddress, intent.amount] }) });
    expect(txs.pay).toEqual({ to: settlementAddress, data: encodeFunctionData({ abi: paymentSettlementAbi, functionName: "pay", args: [intent, signature] }) });
  }
});
