import { describe, expect, test } from "bun:test";
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import type { FacilitatorSvmSigner } from "@x402/svm";
import { buildFacilitator } from "../../../rails/x402/facilitator.ts";
import { v1NetworkName, x402Names } from "../../../rails/x402/networkNames.ts";
import { checkOffer } from "../../../rails/x402/offer.ts";
import { computeBudgetProblem } from "../../../rails/x402/svmPayload.ts";
import { buildConfig } from "../../../plugins/config.ts";

// x402 v1's payloads are accepted on Solana too, under v1's names for the public clusters; and
// whatever the version, the operator pays for no more compute than x402's own client asks.
const config = buildConfig({ RPC_URL_SOLANA: "http://127.0.0.1:1", RPC_URL_SOLANA_DEVNET: "http://127.0.0.1:2", SOLANA_OPERATOR_ADDRESS: Keypair.generate().publicKey.toBase58() });
const network = (shortName: string) => config.networks.find((n) => n.shortName === shortName)!;

describe("x402 v1 on Solana", () => {
  test("the public clusters have v1's names; a local chain has none", () => {
    expect(v1NetworkName(network("solana"))).toBe("solana");
    expect(v1NetworkName(network("solana-devnet"))).toBe("solana-devnet");
    expect(x402Names(network("solana-devnet"))).toEqual(["solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1", "solana-devnet"]);
    expect(v1NetworkName({ type: "solana", chainId: Keypair.generate().publicKey.toBase58() })).toBeNull();
    expect(v1NetworkName({ type: "evm", chainId: "8453" })).toBe("base");
    expect(v1NetworkName({ type: "evm", chainId: "31337" })).toBeNull();
  });

  test("the facilitator settles v1's exact scheme on them, the operator as fee payer", () => {
    const feePayer = Keypair.generate().publicKey.toBase58();
    const signer = { getAddresses: () => [feePayer] } as unknown as FacilitatorSvmSigner;
    const kinds = buildFacilitator(config, { evm: null, svm: () => signer }).getSupported().kinds;
    expect(kinds).toContainEqual(expect.objectContaining({ x402Version: 1, scheme: "exact", network: "solana-devnet", extra: { feePayer } }));
    expect(kinds).toContainEqual(expect.objectContaining({ x402Version: 1, scheme: "exact", network: "solana" }));
    expect(kinds).toContainEqual(expect.objectContaining({ x402Version: 2, scheme: "exact", network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1" }));
  });
});

/** A transfer with these compute budget instructions, partially signed as an x402 payload's (base64). */
function transfer(budget: { units?: number; microLamports?: number }): string {
  const payer = Keypair.generate();
  const tx = new Transaction({ feePayer: Keypair.generate().publicKey, recentBlockhash: Keypair.generate().publicKey.toBase58() });
  if (budget.units !== undefined) tx.add(ComputeBudgetProgram.setComputeUnitLimit({ units: budget.units }));
  if (budget.microLamports !== undefined) tx.add(ComputeBudgetProgram.setComputeUnitPrice({ microLamports: budget.microLamports }));
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 }));
  tx.partialSign(payer);
  return tx.serialize({ requireAllSignatures: false }).toString("base64");
}

describe("a v1 payload on Solana", () => {
  test("is checked against the merchant's offer as v2's are: amount from maxAmountRequired, the compute budget held to the limits", () => {
    const devnet = network("solana-devnet");
    const usdc = devnet.tokens.find((t) => t.symbol === "USDC")!;
    const merchant = Keypair.generate().publicKey;
    const payer = Keypair.generate();
    const spl = (units?: number) => {
      const mint = new PublicKey(usdc.address);
      const tx = new Transaction({ feePayer: Keypair.generate().publicKey, recentBlockhash: Keypair.generate().publicKey.toBase58() });
      if (units !== undefined) tx.add(ComputeBudgetProgram.setComputeUnitLimit({ units }));
      tx.add(createTransferCheckedInstruction(getAssociatedTokenAddressSync(mint, payer.publicKey), mint, getAssociatedTokenAddressSync(mint, merchant), payer.publicKey, 10_000n, usdc.decimals));
      tx.partialSign(payer);
      return tx.serialize({ requireAllSignatures: false }).toString("base64");
    };
    const requirements = { scheme: "exact", network: "solana-devnet", maxAmountRequired: "10000", asset: usdc.address, payTo: merchant.toBase58(), resource: "https://shop.example/report", description: "", mimeType: "application/json", maxTimeoutSeconds: 60, extra: {} } as unknown as PaymentRequirements;
    const payload = (transaction: string) => ({ x402Version: 1, scheme: "exact", network: "solana-devnet", payload: { transaction } }) as unknown as PaymentPayload;
    const wallets = new Map([[devnet.id, merchant.toBase58()]]);
    const checked = checkOffer(config, "test", wallets, payload(spl(20_000)), requirements);
    expect(checked.ok && { payer: checked.offer.payer, amount: checked.offer.amount, network: checked.offer.network.shortName }).toEqual({ payer: payer.publicKey.toBase58(), amount: 10_000n, network: "solana-devnet" });
    const costly = checkOffer(config, "test", wallets, payload(spl(1_400_000)), requirements);
    expect(!costly.ok && costly.reason).toBe("invalid_exact_svm_payload_transaction_compute_budget");
  });
});

describe("what the operator pays for on Solana", () => {
  test("x402's own client's budget passes; more units or a higher price is refused", () => {
    expect(computeBudgetProblem(transfer({ units: 20_000, microLamports: 1 }))).toBeNull();
    expect(computeBudgetProblem(transfer({ units: 20_000, microLamports: 100_000 }))).toBeNull();
    expect(computeBudgetProblem(transfer({}))).toBeNull();
    expect(computeBudgetProblem(transfer({ units: 1_400_000, microLamports: 1 }))).toContain("1400000 exceeds max 20000");
    // v1's own scheme would let this one through (its cap is 5,000,000 micro-lamports a unit).
    expect(computeBudgetProblem(transfer({ units: 20_000, microLamports: 5_000_000 }))).toContain("exceeds max 100000");
  });

  test("what is not a transaction is a problem, not a throw", () => {
    expect(computeBudgetProblem("not base64 at all")).not.toBeNull();
    expect(computeBudgetProblem("")).not.toBeNull();
  });
});
