import { describe, expect, test } from "bun:test";
import { erc20TransferUri } from "../../domain/paymentUri.ts";

const USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
const USDC_ETH = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
const DAI_ETH = "0x6B175474E89094C44Da98b954EedeAC495271d0F";
const MERCHANT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

describe("erc20TransferUri (EIP-681)", () => {
  const cases: Array<[string, Parameters<typeof erc20TransferUri>[0], string]> = [
    [
      "10.5 USDC on Base, numeric chain id",
      { token: USDC_BASE, chainId: 8453, to: MERCHANT, amount: 10_500_000n },
      "ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=10500000",
    ],
    [
      "the same with the chain id as a string",
      { token: USDC_BASE, chainId: "8453", to: MERCHANT, amount: 10_500_000n },
      "ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=10500000",
    ],
    [
      "the smallest unit of USDC on Ethereum",
      { token: USDC_ETH, chainId: 1, to: MERCHANT, amount: 1n },
      "ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48@1/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=1",
    ],
    [
      "10 DAI (18 decimals): plain digits in smallest units, no exponent",
      { token: DAI_ETH, chainId: 1, to: MERCHANT, amount: 10n ** 19n },
      "ethereum:0x6B175474E89094C44Da98b954EedeAC495271d0F@1/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=10000000000000000000",
    ],
    [
      "a local anvil chain",
      { token: USDC_BASE, chainId: 31337, to: MERCHANT, amount: 25_000_000n },
      "ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@31337/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=25000000",
    ],
  ];
  for (const [what, params, expected] of cases) {
    test(what, () => expect(erc20TransferUri(params)).toBe(expected));
  }
});
