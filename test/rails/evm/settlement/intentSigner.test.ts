import { afterAll, expect, test } from "bun:test";
import { randomBytes, randomUUID } from "node:crypto";
import { getAddress, type Hex } from "viem";
import { paymentIdToBytes32, signPaymentIntent } from "../../../../rails/evm/settlement/index.ts";
import { createIntentSigner, type IntentSigner } from "../../../../rails/evm/settlement/intentSigner.ts";

const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}` as Hex;
const privateKey = hex(32);
const parameters = (i: number) => ({
  chainId: 31337,
  settlementAddress: getAddress(hex(20)),
  intent: {
    paymentId: paymentIdToBytes32(randomUUID()),
    merchant: getAddress(hex(20)),
    token: getAddress(hex(20)),
    amount: 1_000_000n + BigInt(i),
    fee: BigInt(i % 3),
    feeRecipient: getAddress(hex(20)),
    deadline: 1_900_000_000n,
  },
});

const signers: IntentSigner[] = [];
afterAll(async () => {
  await Promise.all(signers.map((s) => s.close()));
});

test("on threads or on the caller's, a signature is exactly signPaymentIntent's; concurrent ones come back to their callers", async () => {
  for (const threads of [0, 1, 2]) {
    const signer = createIntentSigner(privateKey, threads);
    signers.push(signer);
    const many = Array.from({ length: 40 }, (_, i) => parameters(i));
    const signatures = await Promise.all(many.map((p) => signer.sign(p)));
    const expected = await Promise.all(many.map((p) => signPaymentIntent({ ...p, operatorPrivateKey: privateKey })));
    expect(signatures).toEqual(expected);
  }
});

test("an intent the digest refuses fails its own call only", async () => {
  const signer = createIntentSigner(privateKey, 1);
  signers.push(signer);
  const bad = parameters(0);
  bad.intent.amount = -1n;
  const [refused, fine] = await Promise.allSettled([signer.sign(bad), signer.sign(parameters(1))]);
  expect(refused.status).toBe("rejected");
  expect(fine.status).toBe("fulfilled");
});

test("a closed signer's threads are gone: nothing keeps the process alive", async () => {
  const signer = createIntentSigner(privateKey, 1);
  await signer.sign(parameters(2));
  await signer.close();
  await expect(signer.sign(parameters(3))).rejects.toThrow();
});
