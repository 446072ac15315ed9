import { getBase58Encoder } from "@solana/kit";
import { VersionedMessage } from "@solana/web3.js";
import { computeFee } from "../ledger/computeFee.ts";
import { PreflightFailedError } from "../ledger/preflightFailedError.ts";
import { encodeAccount, parseAccountEncoding } from "../encode/encodeAccount.ts";
import { encodeSimulation } from "../encode/encodeSimulation.ts";
import { addressParam, configParam, numberParam, querySlot, stringParam, withContext } from "./params.ts";
import { RpcError } from "./RpcError.ts";
import type { RpcMethods } from "./rpcMethod.ts";

// A packet's worth of transaction, as on a real cluster.
const maxTransactionBytes = 1232;

/** Writes: transactions, simulations, airdrops, and what they would cost. */
export const sendMethods: RpcMethods = {
  sendTransaction(params, ledger) {
    const config = configParam(params, 1);
    querySlot(ledger, config, "processed");
    const wire = decodeWireTransaction(stringParam(params, 0, "transaction"), config.encoding);
    try {
      return ledger.submit(wire, { skipPreflight: config.skipPreflight === true });
    } catch (error) {
      if (!(error instanceof PreflightFailedError)) throw error;
      throw new RpcError(-32002, error.message, encodeSimulation(error.simulation, { innerInstructions: false, accounts: null }));
    }
  },

  simulateTransaction(params, ledger) {
    const config = configParam(params, 1);
    const slot = querySlot(ledger, config, "processed");
    if (config.sigVerify && config.replaceRecentBlockhash) throw RpcError.invalidParams("sigVerify may not be used with replaceRecentBlockhash");
    const wire = decodeWireTransaction(stringParam(params, 0, "transaction"), config.encoding);
    const simulation = ledger.simulate(wire, { sigVerify: config.sigVerify === true, replaceRecentBlockhash: config.replaceRecentBlockhash === true });
    const requested = config.accounts as { addresses?: unknown[]; encoding?: unknown } | undefined;
    const accounts = requested?.addresses
      ? requested.addresses.map((value) => {
          const account = addressParam(value);
          const state = simulation.postAccounts.has(account) ? simulation.postAccounts.get(account)! : ledger.accountAtSlot(account, ledger.clock.tip);
          return state ? encodeAccount(account, state, { encoding: parseAccountEncoding(requested.encoding, "base64"), decimalsOf: (m) => ledger.decimalsOf(m) }) : null;
        })
      : null;
    const value = encodeSimulation(simulation, { innerInstructions: config.innerInstructions === true, accounts });
    if (config.replaceRecentBlockhash) {
      const tip = ledger.clock.block(ledger.clock.tip)!;
      value.replacementBlockhash = { blockhash: tip.blockhash, lastValidBlockHeight: ledger.clock.lastValidBlockHeight(tip.slot) };
    }
    return withContext(slot, value);
  },

  requestAirdrop(params, ledger) {
    const recipient = addressParam(params[0]);
    const lamports = numberParam(params[1], "lamports");
    try {
      return ledger.airdrop(recipient, BigInt(lamports));
    } catch (error) {
      if (error instanceof RpcError || error instanceof PreflightFailedError) {
        throw new RpcError(-32603, `airdrop request failed: ${error.message}`);
      }
      throw error;
    }
  },

  getFeeForMessage(params, ledger) {
    const config = configParam(params, 1);
    const slot = querySlot(ledger, config);
    let message: VersionedMessage;
    try {
      message = VersionedMessage.deserialize(Buffer.from(stringParam(params, 0, "message"), "base64"));
    } catch (cause) {
      throw RpcError.invalidParams(`invalid message: ${(cause as Error).message}`);
    }
    if (message.version !== "legacy" && message.version !== 0) throw RpcError.invalidParams("invalid message: unsupported version");
    const fee = ledger.clock.isBlockhashValid(message.recentBlockhash) ? Number(computeFee(message)) : null;
    return withContext(slot, fee);
  },
};

function decodeWireTransaction(encoded: string, encoding: unknown): Uint8Array {
  let wire: Uint8Array;
  if (encoding === "base64") {
    wire = Buffer.from(encoded, "base64");
    if (wire.length === 0 && encoded.length > 0) throw RpcError.invalidParams("invalid base64 encoding");
  } else if (encoding === undefined || encoding === null || encoding === "base58") {
    try {
      wire = getBase58Encoder().encode(encoded) as Uint8Array;
    } catch (cause) {
      throw RpcError.invalidParams(`invalid base58 encoding: ${(cause as Error).message}`);
    }
  } else {
    throw RpcError.invalidParams(`unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`);
  }
  if (wire.length > maxTransactionBytes) {
    throw RpcError.invalidParams(`decoded solana_transaction::versioned::VersionedTransaction too large: ${wire.length} bytes (max: ${maxTransactionBytes} bytes)`);
  }
  return wire;
}
