import { buildConfig } from "../../plugins/config.ts";
import { expect, test } from "bun:test";

import { bridgeEvidence, bridgeMethod } from "../../rails/bridge/index.ts";
import { evmChain, evmContractPayment, evmDepositAddress, evmEvidence } from "../../rails/evm/index.ts";
import { chainFor, evidenceFor, evidenceSources, ingestFor, ingests, methodFor, portsOf, stockedMethods } from "../../rails/index.ts";
import { solanaChain, solanaDepositAddress, solanaEvidence, solanaPay } from "../../rails/solana/index.ts";
import { x402Evidence, x402Method } from "../../rails/x402/index.ts";

const config = buildConfig({ RPC_URL_BASE: "https://base.example", RPC_URL_SOLANA: "https://solana.example" });
const network = (shortName: string) => config.networks.find((n) => n.shortName === shortName)!;

test("a network type's chain, ingest and methods by kind; a cross-chain payment's method and evidence are the bridge's, its chain its network's", () => {
  const [base, solana] = [network("base"), network("solana")];
  expect([chainFor(base), ingestFor(base), methodFor(base, "payment"), methodFor(base, "deposit")]).toEqual([evmChain, evmEvidence, evmContractPayment, evmDepositAddress]);
  expect([chainFor(solana), ingestFor(solana), methodFor(solana, "payment"), methodFor(solana, "deposit")]).toEqual([solanaChain, solanaEvidence, solanaPay, solanaDepositAddress]);
  expect([methodFor(base, "cross_chain"), evidenceFor(base, { kind: "cross_chain" }), evidenceFor(base, { kind: "deposit" })]).toEqual([bridgeMethod, bridgeEvidence, evmEvidence]);
  expect(portsOf(config, { chainId: base.chainId, kind: "cross_chain" })).toEqual({ network: base, chain: evmChain, method: bridgeMethod, evidence: bridgeEvidence });
  expect(() => portsOf(config, { chainId: "137", kind: "payment" })).toThrow("The payment's network (chain 137) is not available.");
});

test("each port is listed once: the ingests follow chains, the bridge only loads credits; only Solana's deposit addresses are stocked", () => {
  expect(ingests()).toEqual([evmEvidence, solanaEvidence]);
  expect(evidenceSources()).toEqual([evmEvidence, solanaEvidence, bridgeEvidence, x402Evidence]);
  expect(stockedMethods(config).map((s) => [s.name, s.method === solanaDepositAddress, s.networks.map((n) => n.shortName)])).toEqual([["solana deposit", true, ["solana"]]]);
});

test("the bridge implements only what it has: no chain operation, no placeholder answer", () => {
  expect(Object.keys(bridgeMethod).sort()).toEqual(["kind", "verifiedInstead"]);
  expect(Object.keys(bridgeEvidence).sort()).toEqual(["inTransit", "loadCredits", "name"]);
  // What differs by kind is the method's: Solana Pay pays the merchant's own wallet, a deposit key is the service's.
  expect([solanaPay.holdsFunds, solanaDepositAddress.holdsFunds?.({} as never)]).toEqual([undefined, true]);
  expect([evmContractPayment.collectsFee, evmDepositAddress.collectsFee, solanaPay.collectsFee]).toEqual([true, false, false]);
});

test("an x402 payment's method and evidence are its kind's (the settlement contract's AuthorizationSettled log), its chain its network's; it holds nothing", () => {
  const base = network("base");
  expect([methodFor(base, "x402"), evidenceFor(base, { kind: "x402" })]).toEqual([x402Method, x402Evidence]);
  expect(portsOf(config, { chainId: base.chainId, kind: "x402" })).toEqual({ network: base, chain: evmChain, method: x402Method, evidence: x402Evidence });
  expect(Object.keys(x402Method).sort()).toEqual(["kind", "verifiedInstead"]);
  expect(Object.keys(x402Evidence).sort()).toEqual(["loadCredits", "name"]);
});
