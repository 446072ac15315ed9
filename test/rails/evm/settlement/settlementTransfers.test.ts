import { describe, expect, test } from "bun:test";
import { encodeAbiParameters, encodeEventTopics, erc20Abi, type Address, type Hex, type Log } from "viem";
import { paymentSettlementAbi } from "../../../../contracts/artifacts/index.ts";
import { settledCredit, settlementTransfers } from "../../../../rails/evm/settlement/settlementTransfers.ts";

const CONTRACT: Address = "0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0";
const OTHER_CONTRACT: Address = "0x0000000000000000000000000000000000000c0c";
const TOKEN: Address = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const OTHER_TOKEN: Address = "0x0000000000000000000000000000000000000bad";
const PAYER: Address = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const MERCHANT: Address = "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc";
const FEE: Address = "0x90f79bf6eb2c4f870365e785982e1f101e93b906";
const COLLECTOR: Address = "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65";

const log = (logIndex: number, address: Address, topics: Hex[], data: Hex): Log<bigint, number, false> =>
  ({ address, topics, data, logIndex, blockHash: "0xb", blockNumber: 1n, transactionHash: "0xt", transactionIndex: 0, removed: false }) as unknown as Log<bigint, number, false>;
const transfer = (logIndex: number, from: Address, to: Address, value: bigint, token: Address = TOKEN) =>
  log(logIndex, token, encodeEventTopics({ abi: erc20Abi, eventName: "Transfer", args: { from, to } }) as Hex[], encodeAbiParameters([{ type: "uint256" }], [value]));
const settled = (logIndex: number, contract: Address = CONTRACT) =>
  log(
    logIndex,
    contract,
    encodeEventTopics({ abi: paymentSettlementAbi, eventName: "PaymentSettled", args: { paymentId: `0x${"0".repeat(64)}`, payer: PAYER, token: TOKEN } }) as Hex[],
    encodeAbiParameters([{ type: "address" }, { type: "uint256" }, { type: "uint256" }], [MERCHANT, 1_000_000n, 0n]),
  );
const of = (logs: Log<bigint, number, false>[], logIndex: number) => settlementTransfers(logs, { logIndex, contract: CONTRACT, token: TOKEN, payer: PAYER });

describe("settlementTransfers", () => {
  test("a fee-on-transfer token's two Transfers (fee to its collector first, as USDT emits them) are both recorded", () => {
    expect(of([transfer(0, PAYER, COLLECTOR, 10_000n), transfer(1, PAYER, MERCHANT, 990_000n), settled(2)], 2)).toEqual([
      { to: COLLECTOR, amount: "10000" },
      { to: MERCHANT, amount: "990000" },
    ]);
  });

  test("only this settlement's: after the contract's previous PaymentSettled in the transaction, before this one", () => {
    const logs = [transfer(0, PAYER, MERCHANT, 500_000n), settled(1), transfer(2, PAYER, MERCHANT, 700_000n), settled(3), transfer(4, PAYER, MERCHANT, 9n)];
    expect(of(logs, 1)).toEqual([{ to: MERCHANT, amount: "500000" }]);
    expect(of(logs, 3)).toEqual([{ to: MERCHANT, amount: "700000" }]);
  });

  test("another contract's event of the same signature bounds nothing; other tokens, other senders and 4-topic Transfers are left out", () => {
    const nft = log(4, TOKEN, [...(encodeEventTopics({ abi: erc20Abi, eventName: "Transfer", args: { from: PAYER, to: MERCHANT } }) as Hex[]), `0x${"0".repeat(63)}1`], "0x");
    const logs = [
      transfer(0, PAYER, MERCHANT, 100n),
      settled(1, OTHER_CONTRACT),
      transfer(2, PAYER, MERCHANT, 1_000_000n, OTHER_TOKEN),
      transfer(3, MERCHANT, MERCHANT, 1_000_000n),
      nft,
      settled(5),
    ];
    expect(of(logs, 5)).toEqual([{ to: MERCHANT, amount: "100" }]);
  });
});

describe("settledCredit", () => {
  const t = (to: string, amount: bigint) => ({ to, amount: amount.toString() });
  test("what reached the merchant and the fee recipient; a token's collector is no recipient", () => {
    expect(settledCredit(1_000_000n, [t(COLLECTOR, 9_000n), t(MERCHANT, 891_000n), t(COLLECTOR, 1_000n), t(FEE, 99_000n)], [MERCHANT, FEE])).toBe(990_000n);
  });
  test("at most the intent's amount; nothing delivered, nothing credited; addresses compared whatever their case", () => {
    expect(settledCredit(1_000_000n, [t(MERCHANT.toUpperCase().replace("0X", "0x"), 1_500_000n)], [MERCHANT])).toBe(1_000_000n);
    expect(settledCredit(1_000_000n, [], [MERCHANT, FEE])).toBe(0n);
    expect(settledCredit(1_000_000n, [t(MERCHANT, 600_000n), t(FEE, 400_000n)], [MERCHANT, MERCHANT])).toBe(600_000n);
  });
});
