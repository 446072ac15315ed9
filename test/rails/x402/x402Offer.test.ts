import { describe, expect, test } from "bun:test";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { getAddress } from "viem";

import { x402Name } from "../../../rails/x402/networkNames.ts";
import { checkOffer } from "../../../rails/x402/offer.ts";
import { ANVIL_USDC, anvilNetwork } from "../../../harness/fixtures.ts";
import { buildConfig } from "../../../plugins/config.ts";

// What the payer controls reaches the facilitator: each field of the requirements, the payload's
// `accepted` and the authorization is checked against what the merchant offers.
const contract = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const config = buildConfig({}, { extraNetworks: [anvilNetwork("http://127.0.0.1:8545", { settlementContract: contract })] });
const anvil = config.networks.find((n) => n.shortName === "anvil")!;
const wallet = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const wallets = new Map([[anvil.id, wallet]]);
const payer = getAddress("0x70997970c51812dc3a010c7d01b50e20d17dc79c");
const nonce = `0x${"ab".repeat(32)}`;

const requirements: PaymentRequirements = {
  scheme: "exact",
  network: "eip155:31337",
  asset: ANVIL_USDC,
  amount: "10000",
  payTo: contract,
  maxTimeoutSeconds: 60,
  extra: { name: "USD Coin", version: "2" },
};
const payload = (over: { accepted?: Partial<PaymentRequirements>; authorization?: Record<string, unknown> } = {}): PaymentPayload => ({
  x402Version: 2,
  accepted: { ...requirements, ...over.accepted },
  payload: { signature: "0x00", authorization: { from: payer, to: contract, value: "10000", validAfter: "0", validBefore: "9999999999", nonce, ...over.authorization } },
});

describe("checkOffer", () => {
  test("the merchant's own offer passes, with what will settle: into the settlement contract, on to the merchant's wallet", () => {
    const checked = checkOffer(config, "test", wallets, payload(), requirements);
    expect(checked).toEqual({ ok: true, offer: { network: anvil, token: anvil.tokens[0]!, payer, payTo: contract, merchantWallet: wallet, collectsFee: true, amount: 10_000n, nonce, validBefore: 9_999_999_999n } });
  });

  const cases: Array<[string, Parameters<typeof payload>[0], Partial<PaymentRequirements>, string, "test" | "live"]> = [
    ["another scheme", {}, { scheme: "upto" }, "unsupported_scheme", "test"],
    ["a chain not served", { accepted: { network: "eip155:1" } }, { network: "eip155:1" }, "invalid_network", "test"],
    ["a test chain with live credentials", {}, {}, "invalid_network", "live"],
    ["an asset that is no token of the chain", { accepted: { asset: payer } }, { asset: payer }, "asset_not_offered", "test"],
    ["payTo not the settlement contract", { accepted: { payTo: payer } }, { payTo: payer }, "pay_to_not_settlement_contract", "test"],
    ["payTo the merchant's wallet (it would skip the fee)", { accepted: { payTo: wallet } }, { payTo: wallet }, "pay_to_not_settlement_contract", "test"],
    ["a zero amount", { accepted: { amount: "0" } }, { amount: "0" }, "invalid_amount", "test"],
    ["an amount that is no integer", { accepted: { amount: "1.5" } }, { amount: "1.5" }, "invalid_amount", "test"],
    ["accepted cheaper than the requirements", { accepted: { amount: "1" } }, {}, "accepted_requirements_mismatch", "test"],
    ["accepted paying someone else", { accepted: { payTo: payer } }, {}, "accepted_requirements_mismatch", "test"],
    ["an authorization paying someone else", { authorization: { to: payer } }, {}, "pay_to_not_settlement_contract", "test"],
    ["an authorization paying the merchant's wallet", { authorization: { to: wallet } }, {}, "pay_to_not_settlement_contract", "test"],
    ["an authorization for less", { authorization: { value: "9999" } }, {}, "invalid_amount", "test"],
    ["a nonce that is not 32 bytes", { authorization: { nonce: "0x01" } }, {}, "invalid_payload", "test"],
  ];
  for (const [what, payloadChange, requirementsChange, reason, mode] of cases) {
    test(`refused: ${what} (${reason})`, () => {
      const checked = checkOffer(config, mode, wallets, payload(payloadChange), { ...requirements, ...requirementsChange });
      expect(checked.ok ? "accepted" : checked.reason).toBe(reason);
    });
  }

  test("refused: no settlement wallet on the chain", () => {
    const checked = checkOffer(config, "test", new Map(), payload(), requirements);
    expect(checked.ok ? "accepted" : checked.reason).toBe("no_merchant_wallet");
  });

  test("refused: a chain without the settlement contract is not served (the fee could not be taken)", () => {
    const bare = buildConfig({}, { extraNetworks: [anvilNetwork("http://127.0.0.1:8545")] });
    const checked = checkOffer(bare, "test", new Map([[bare.networks.find((n) => n.shortName === "anvil")!.id, wallet]]), payload(), requirements);
    expect(checked.ok ? "accepted" : checked.reason).toBe("invalid_network");
  });

  test("refused: a payload with no EIP-3009 authorization (Permit2)", () => {
    const checked = checkOffer(config, "test", wallets, { ...payload(), payload: { permit2Authorization: {} } }, requirements);
    expect(checked.ok ? "accepted" : checked.reason).toBe("unsupported_payload");
  });

  test("x402 v1 (`X-PAYMENT`): named networks and `maxAmountRequired` are read as v1 sends them", () => {
    const v1Config = buildConfig({ RPC_URL_84532: "http://127.0.0.1:8545", SETTLEMENT_CONTRACT_84532: contract });
    const baseSepolia = v1Config.networks.find((n) => n.shortName === "base-sepolia")!;
    const usdc = baseSepolia.tokens.find((t) => t.symbol === "USDC")!.address;
    const v1Requirements = { scheme: "exact", network: "base-sepolia", asset: usdc, maxAmountRequired: "10000", payTo: contract, resource: "http://shop.test/report", maxTimeoutSeconds: 60, extra: { name: "USDC", version: "2" } };
    const v1Payload = { x402Version: 1, scheme: "exact", network: "base-sepolia", payload: payload().payload } as unknown as PaymentPayload;
    const checked = checkOffer(v1Config, "test", new Map([[baseSepolia.id, wallet]]), v1Payload, v1Requirements as unknown as PaymentRequirements);
    expect(checked.ok && { network: checked.offer.network.shortName, amount: checked.offer.amount }).toEqual({ network: "base-sepolia", amount: 10_000n });
    // A v1 name x402 does not know (the sandbox's chains have none) is refused by name.
    const local = checkOffer(config, "test", wallets, { ...v1Payload, network: "anvil" } as PaymentPayload, { ...v1Requirements, network: "anvil" } as unknown as PaymentRequirements);
    expect(local.ok ? "accepted" : local.reason).toBe("invalid_network");
  });
});

describe("checkOffer on Solana", () => {
  const solanaConfig = buildConfig({ RPC_URL_SOLANA_DEVNET: "http://127.0.0.1:8899" });
  const devnet = solanaConfig.networks.find((n) => n.shortName === "solana-devnet")!;
  const mint = devnet.tokens.find((t) => t.symbol === "USDC")!.address;
  const solanaWallet = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
  const solanaRequirements: PaymentRequirements = {
    scheme: "exact",
    network: "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1",
    asset: mint,
    amount: "10000",
    payTo: solanaWallet,
    maxTimeoutSeconds: 60,
    extra: { feePayer: "11111111111111111111111111111111" },
  };
  const solanaPayload = (reqs: PaymentRequirements, transaction: unknown = "AQID"): PaymentPayload => ({ x402Version: 2, accepted: reqs, payload: { transaction } });
  const check = (reqs: PaymentRequirements, payloadOf = solanaPayload(reqs)) => checkOffer(solanaConfig, "test", new Map([[devnet.id, solanaWallet]]), payloadOf, reqs);

  test("the network is named by its genesis hash's CAIP-2 prefix, as x402 names Solana's", () => {
    expect(x402Name(devnet)).toBe("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
    expect(check({ ...solanaRequirements, network: `solana:${devnet.chainId}x` }).ok ? "accepted" : "refused").toBe("refused");
  });

  test("base58 is case-sensitive: payTo differing from the wallet only in case is another account", () => {
    const swapped = { ...solanaRequirements, payTo: solanaWallet.replace("W", "w") };
    const checked = check(swapped);
    expect(checked.ok ? "accepted" : checked.reason).toBe("pay_to_not_merchant_wallet");
  });

  test("a payload that is no partially signed transfer is refused before x402's verify", () => {
    expect((check(solanaRequirements) as { reason?: string }).reason).toBe("unsupported_payload");
    expect((check(solanaRequirements, solanaPayload(solanaRequirements, 42)) as { reason?: string }).reason).toBe("unsupported_payload");
  });
});
