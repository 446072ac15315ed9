import { randomBytes } from "node:crypto";
import { bytesToHex, encodeFunctionData, getAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { testStablecoinAbi } from "./artifacts/index.ts";

/** Unrelated transfers per generator transaction (`TestStablecoin.transferBatch`). */
const PER_TX = 30;

/**
 * Mainnet-shaped background traffic for benchmarks and tests: Transfers of a test
 * stablecoin from funded senders to fresh random addresses, signed here and sent raw, so
 * producing a block's worth costs the node only. Senders must hold the token and gas.
 */
export function createTransferGenerator(options: { chainId: number; token: Address; senderKeys: readonly Hex[]; send: (raw: Hex) => Promise<unknown> }) {
  const senders = options.senderKeys.map((key) => ({ account: privateKeyToAccount(key), nonce: 0 }));
  return {
    senders: senders.map((s) => s.account.address),
    /** Tells the generator each sender's next nonce (call once the senders are funded). */
    setNonces(nonces: readonly number[]) {
      nonces.forEach((nonce, i) => (senders[i]!.nonce = nonce));
    },
    /** Sends `count` unrelated transfers (in transactions of up to 30) for the next block. */
    async send(count: number): Promise<void> {
      const sent: Promise<unknown>[] = [];
      for (let done = 0, i = 0; done < count; done += PER_TX, i++) {
        const sender = senders[i % senders.length]!;
        // Random 20-byte addresses: nobody's keys are needed, and deriving them would cost the benchmark's CPU.
        const recipients = Array.from({ length: Math.min(PER_TX, count - done) }, () => getAddress(bytesToHex(randomBytes(20))));
        const raw = await sender.account.signTransaction({
          chainId: options.chainId,
          nonce: sender.nonce++,
          to: options.token,
          data: encodeFunctionData({ abi: testStablecoinAbi, functionName: "transferBatch", args: [recipients, 1n] }),
          gas: 40_000n * BigInt(recipients.length) + 60_000n,
          maxFeePerGas: 50_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
        });
        sent.push(options.send(raw));
      }
      await Promise.all(sent);
    },
  };
}
