import { expect, test } from "bun:test";
import { ed25519 } from "@noble/curves/ed25519";
import { base58, base64 } from "@scure/base";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { refundMessage } from "../../payouts/index.ts";
import { evmChain } from "../../rails/evm/index.ts";
import { solanaChain } from "../../rails/solana/index.ts";

const message = refundMessage({ paymentId: "3f1c2b9a-0000-4000-8000-00000000abcd", to: "0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B", amount: "2", token: "USDC", network: "Anvil", chainId: "31337" });

test("EVM: an EIP-191 personal_sign signature of the message by the payer verifies; by anyone else, or of another text, it does not", async () => {
  const payer = privateKeyToAccount(generatePrivateKey());
  const stranger = privateKeyToAccount(generatePrivateKey());
  const signature = await payer.signMessage({ message });
  expect(await evmChain.verifySignedMessage(payer.address, message, signature)).toBe(true);
  // The address in any case the API accepts (it is checksummed before the check).
  expect(await evmChain.verifySignedMessage(payer.address.toLowerCase(), message, signature)).toBe(true);
  expect(await evmChain.verifySignedMessage(stranger.address, message, signature)).toBe(false);
  expect(await evmChain.verifySignedMessage(payer.address, `${message} `, signature)).toBe(false);
  expect(await evmChain.verifySignedMessage(payer.address, message, await stranger.signMessage({ message }))).toBe(false);
  // Another version of the text, or the same text signed as typed data, is not this message's signature.
  expect(await evmChain.verifySignedMessage(payer.address, message.replace("version 1", "version 2"), signature)).toBe(false);
});

test("EVM: malformed signatures are false, never an error", async () => {
  const payer = privateKeyToAccount(generatePrivateKey());
  const signature = await payer.signMessage({ message });
  for (const bad of ["", "0x", "0x1234", signature.slice(0, -2), `${signature}00`, signature.replace("0x", ""), `0x${"zz".repeat(65)}`, `0x${"00".repeat(65)}`, `0x${"ff".repeat(65)}`]) {
    expect([bad, await evmChain.verifySignedMessage(payer.address, message, bad)]).toEqual([bad, false]);
  }
});

test("Solana: an ed25519 signMessage signature by the payer verifies, in base58 or base64; by anyone else it does not", async () => {
  const secret = ed25519.utils.randomPrivateKey();
  const payer = base58.encode(ed25519.getPublicKey(secret));
  const stranger = base58.encode(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));
  const signature = ed25519.sign(new TextEncoder().encode(message), secret);
  expect(await solanaChain.verifySignedMessage(payer, message, base58.encode(signature))).toBe(true);
  expect(await solanaChain.verifySignedMessage(payer, message, base64.encode(signature))).toBe(true);
  expect(await solanaChain.verifySignedMessage(stranger, message, base58.encode(signature))).toBe(false);
  expect(await solanaChain.verifySignedMessage(payer, `${message}.`, base58.encode(signature))).toBe(false);
  for (const bad of ["", "abc", base58.encode(signature.slice(1)), base64.encode(new Uint8Array(64)), "0x" + "00".repeat(64), "!!!"]) {
    expect([bad, await solanaChain.verifySignedMessage(payer, message, bad)]).toEqual([bad, false]);
  }
  expect(await solanaChain.verifySignedMessage("not-a-key", message, base58.encode(signature))).toBe(false);
});

test("the rails name the browser wallet interface the checkout page signs with", () => {
  expect(evmChain.messageSigner).toBe("eip1193");
  expect(solanaChain.messageSigner).toBe("solana");
});
