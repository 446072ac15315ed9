import { afterEach, expect, test } from "bun:test";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import { hexToBytes, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { messageFor, refusalOf } from "../../../api/checkout/assets/refund.js";
import { signerFor, signRefundMessage } from "../../../api/checkout/assets/refundSign.js";
import { LANGUAGES } from "../../../api/checkout/messages/index.ts";
import { en } from "../../../api/checkout/messages/en.ts";
import { messageOf } from "../../../payouts/refundRequestView.ts";
import { evmChain } from "../../../rails/evm/index.ts";
import { solanaChain } from "../../../rails/solana/index.ts";

/**
 * The page's refund signing (refundSign.js) against scripted browser wallets, checked by the
 * server's own verification: what the page has the wallet sign is what the service accepts.
 */
const view = { id: "0d2f7c8e-3f4b-4a8e-9a51-52b1a7f4c0aa", token: "USDC", networkName: "Anvil", network: "anvil", chainId: "31337", merchantName: "Acme" };
const request = { to: "0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B", amount: "2.5" };
const globals = globalThis as unknown as { window?: Record<string, unknown> };

afterEach(() => {
  delete globals.window;
});

test("the page's message for a request is the server's, byte for byte", () => {
  expect(messageFor(view, request)).toBe(messageOf({ paymentId: view.id, toAddress: request.to, amount: 2_500_000n }, { tokenDecimals: 6, tokenSymbol: "USDC", chainId: "31337" }, { name: "Anvil" }));
});

test("EVM: personal_sign through the injected wallet, hex of the text's bytes; the service verifies it as the payer's", async () => {
  const payer = privateKeyToAccount(generatePrivateKey());
  const calls: Array<{ method: string; params?: unknown[] }> = [];
  const wallet = {
    request: async ({ method, params }: { method: string; params?: unknown[] }) => {
      calls.push({ method, params });
      if (method === "eth_requestAccounts") return [payer.address];
      if (method === "personal_sign") return payer.signMessage({ message: { raw: hexToBytes(params![0] as Hex) } });
      throw new Error(`unexpected ${method}`);
    },
  };
  globals.window = { ethereum: wallet };
  expect(signerFor("eip1193")).toBe(wallet);
  expect(signerFor("solana")).toBeNull();
  const message = messageFor(view, request);
  const signature = await signRefundMessage("eip1193", wallet, message);
  expect(calls.map((c) => c.method)).toEqual(["eth_requestAccounts", "personal_sign"]);
  expect(calls[1]!.params![1]).toBe(payer.address);
  expect(await evmChain.verifySignedMessage(payer.address, message, signature)).toBe(true);
});

test("Solana: the injected wallet's signMessage (connected first), sent as base64; the service verifies it as the payer's", async () => {
  const secret = ed25519.utils.randomPrivateKey();
  const payer = base58.encode(ed25519.getPublicKey(secret));
  let connected = false;
  const wallet = {
    publicKey: null as null | string,
    connect: async () => {
      connected = true;
      wallet.publicKey = payer;
    },
    signMessage: async (bytes: Uint8Array, display: string) => {
      expect(display).toBe("utf8");
      return { signature: ed25519.sign(bytes, secret), publicKey: payer };
    },
  };
  globals.window = { phantom: { solana: wallet } };
  expect(signerFor("solana")).toBe(wallet);
  expect(signerFor("eip1193")).toBeNull();
  const message = messageFor({ ...view, networkName: "Solana", chainId: "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" }, { to: payer, amount: "1" });
  const signature = await signRefundMessage("solana", wallet, message);
  expect(connected).toBe(true);
  expect(await solanaChain.verifySignedMessage(payer, message, signature)).toBe(true);
  // A wallet answering the bytes alone (window.solana) works the same.
  const bare = { signMessage: async (bytes: Uint8Array) => ed25519.sign(bytes, secret) };
  globals.window = { solana: bare };
  expect(await solanaChain.verifySignedMessage(payer, message, await signRefundMessage("solana", signerFor("solana"), message))).toBe(true);
});

test("no wallet, or none for the rail: nothing to sign with", () => {
  globals.window = {};
  expect(signerFor("eip1193")).toBeNull();
  expect(signerFor("solana")).toBeNull();
  expect(signerFor(null)).toBeNull();
});

test("every refusal code the service answers is said in words, in every language", () => {
  const codes = ["nothing_to_refund", "refund_in_progress", "refund_below_minimum", "refund_not_held", "refund_reverting", "refund_address_required", "too_many_refund_requests", "refund_signature_invalid"];
  for (const { messages } of LANGUAGES) {
    const said = codes.map((code) => refusalOf(messages, code, { merchantName: "Acme" }));
    expect(said).not.toContain(messages.refundFailed);
    expect(said.every((s) => !s.includes("{"))).toBe(true);
  }
  expect(refusalOf(en, "refund_signature_invalid", { merchantName: "Acme" })).toBe("That wallet did not pay this payment, or signed something else. Acme can still approve your request.");
  expect(refusalOf(en, "something_else", { merchantName: "Acme" })).toBe(en.refundFailed);
});
