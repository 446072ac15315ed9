import { describe, expect, test } from "bun:test";
import { encodeFunctionData, erc20Abi } from "viem";
import type { PaymentRow } from "../../../db/schema/index.ts";
import { checkoutWallet as walletAt, INTENT_MARGIN_MS } from "../../../rails/evm/checkoutWallet.ts";

const token = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const receive = "0x440F6B3AA75B0E839c6E3FBE9E2BDe866813cbea";
const row = (over: Partial<PaymentRow> = {}) =>
  ({
    id: "0d2f7c8e-3f4b-4a8e-9a51-52b1a7f4c0aa",
    kind: "payment",
    status: "pending",
    amount: 25_500_000n,
    amountReceived: 0n,
    amountRemaining: 25_500_000n,
    chainId: "8453",
    tokenAddress: token,
    receiveAddress: receive,
    contractAddress: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
    merchantWallet: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    feeAmount: 0n,
    feeRecipient: null,
    intentSignature: `0x${"11".repeat(65)}`,
    intentDeadline: new Date("2026-11-23T12:30:00Z"),
    ...over,
  }) as PaymentRow;

const now = new Date("2026-11-23T12:00:00Z");
const checkoutWallet = (p: PaymentRow) => walletAt(p, now);
const transfer = (units: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [receive, units] });

describe("the checkout page's wallet transactions (EVM rail)", () => {
  test("a contract payment nothing has reached: approve, then pay, for the whole amount on its chain", () => {
    const plan = checkoutWallet(row())!;
    expect(plan).toMatchObject({ protocol: "eip1193", chain: "0x2105", token, amount: "25500000" });
    expect(plan.transactions.map((t) => t.description)).toEqual(["approve", "pay"]);
  });

  test("a deposit payment, or a contract payment partly paid by QR: one transfer of what is left to the payment's address", () => {
    expect(checkoutWallet(row({ kind: "deposit", contractAddress: null, intentSignature: null }))!.transactions).toEqual([
      { description: "transfer", to: token, data: transfer(25_500_000n), value: "0" },
    ]);
    const partly = checkoutWallet(row({ amountReceived: 5_500_000n, amountRemaining: 20_000_000n }))!;
    expect(partly.amount).toBe("20000000");
    expect(partly.transactions).toEqual([{ description: "transfer", to: token, data: transfer(20_000_000n), value: "0" }]);
  });

  // BUG: after an expiry extended for a stalled chain (or in the intent's last seconds) the
  // button sent approve + pay: the approval mined, then the contract refused the lapsed intent.
  test("an intent about to lapse: one transfer of the amount to the payment's address instead", () => {
    const deadline = new Date(now.getTime() + INTENT_MARGIN_MS);
    expect(walletAt(row({ intentDeadline: deadline }), now)!.transactions.map((t) => t.description)).toEqual(["approve", "pay"]);
    for (const at of [new Date(deadline.getTime() - INTENT_MARGIN_MS + 1), deadline, new Date(deadline.getTime() + 60_000)]) {
      expect(walletAt(row({ intentDeadline: deadline }), at)!.transactions).toEqual([{ description: "transfer", to: token, data: transfer(25_500_000n), value: "0" }]);
    }
  });

  test("nothing once the payment is no longer waiting for money", () => {
    for (const status of ["confirming", "completed", "expired", "failed", "cancelled"] as const) expect(checkoutWallet(row({ status }))).toBeNull();
  });
});
