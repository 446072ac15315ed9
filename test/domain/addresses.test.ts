import { describe, expect, test } from "bun:test";
import { normalizeAddress } from "../../plugins/config.ts";

const USDC_ETH = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
const USDC_SOLANA = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

describe("normalizeAddress evm", () => {
  const cases: Array<[string, string, string | null]> = [
    ["all lowercase is accepted and checksummed", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", USDC_ETH],
    ["all uppercase body is accepted and checksummed", "0xA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48", USDC_ETH],
    ["valid EIP-55 mixed case is kept", USDC_ETH, USDC_ETH],
    ["another valid checksum (Base USDC)", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"],
    ["surrounding whitespace is trimmed", `  ${USDC_ETH}\n`, USDC_ETH],
    ["digits only need no checksum", "0x0000000000000000000000000000000000000001", "0x0000000000000000000000000000000000000001"],
    ["mixed case with one letter's case flipped is rejected", "0xa0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", null],
    ["mixed case with the last letter's case flipped is rejected", "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eb48", null],
    ["39 hex digits", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb4", null],
    ["41 hex digits", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb480", null],
    ["32-byte hash instead of an address", `0x${"ab".repeat(32)}`, null],
    ["missing 0x", "a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", null],
    ["uppercase 0X prefix", "0Xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", null],
    ["non-hex character", "0xg0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", null],
    ["empty", "", null],
    ["a Solana address", USDC_SOLANA, null],
  ];
  for (const [what, input, expected] of cases) {
    test(what, () => expect(normalizeAddress("evm", input)).toBe(expected));
  }
});

describe("normalizeAddress solana", () => {
  const cases: Array<[string, string, string | null]> = [
    ["USDC mint", USDC_SOLANA, USDC_SOLANA],
    ["USDT mint", "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB"],
    ["system program (32 zero bytes)", "11111111111111111111111111111111", "11111111111111111111111111111111"],
    ["surrounding whitespace is trimmed", ` ${USDC_SOLANA} `, USDC_SOLANA],
    ["contains 0 (not base58)", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10", null],
    ["contains O (not base58)", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtOv", null],
    ["contains I (not base58)", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtIv", null],
    ["contains l (not base58)", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDtlv", null],
    ["too short", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4", null],
    ["too long (45 characters)", `1${USDC_SOLANA}`, null],
    ["base58 of the right length but only 24 bytes", "2".repeat(32), null],
    ["base58 of the right length but more than 32 bytes", "z".repeat(44), null],
    ["an EVM address", USDC_ETH, null],
    ["empty", "", null],
  ];
  for (const [what, input, expected] of cases) {
    test(what, () => expect(normalizeAddress("solana", input)).toBe(expected));
  }
});
