import type { AccountState } from "../ledger/accountState.ts";
import type { DevLedger } from "../ledger/DevLedger.ts";
import { encodeAccount, parseAccountEncoding } from "../encode/encodeAccount.ts";
import { addressParam, type Config, configParam, numberParam, querySlot, withContext } from "./params.ts";
import { matchesAccountFilter } from "./matchesAccountFilter.ts";
import { RpcError } from "./RpcError.ts";
import type { RpcMethods } from "./rpcMethod.ts";

/** Account reads, each at the slot its commitment names. */
export const accountMethods: RpcMethods = {
  getAccountInfo(params, ledger) {
    const account = addressParam(params[0]);
    const config = configParam(params, 1);
    const slot = querySlot(ledger, config);
    return withContext(slot, encodeMaybeAccount(ledger, account, ledger.accountAtSlot(account, slot), config, "binary"));
  },

  getMultipleAccounts(params, ledger) {
    if (!Array.isArray(params[0])) throw RpcError.invalidParams("Invalid params: expected an array of public keys");
    if (params[0].length > 100) throw RpcError.invalidParams("Too many inputs provided; max 100");
    const accounts = params[0].map(addressParam);
    const config = configParam(params, 1);
    const slot = querySlot(ledger, config);
    return withContext(slot, accounts.map((account) => encodeMaybeAccount(ledger, account, ledger.accountAtSlot(account, slot), config, "base64")));
  },

  getBalance(params, ledger) {
    const account = addressParam(params[0]);
    const slot = querySlot(ledger, configParam(params, 1));
    return withContext(slot, Number(ledger.accountAtSlot(account, slot)?.lamports ?? 0n));
  },

  getProgramAccounts(params, ledger) {
    const programId = addressParam(params[0]);
    const config = configParam(params, 1);
    const slot = querySlot(ledger, config);
    const filters = Array.isArray(config.filters) ? config.filters : [];
    const found = ledger
      .programAccountsAtSlot(programId, slot)
      .map((account) => ({ account, state: ledger.accountAtSlot(account, slot)! }))
      .filter(({ state }) => filters.every((filter) => matchesAccountFilter(state, filter)))
      .map(({ account, state }) => ({ pubkey: account, account: encodeMaybeAccount(ledger, account, state, config, "binary") }));
    return config.withContext ? withContext(slot, found) : found;
  },

  getMinimumBalanceForRentExemption(params, ledger) {
    const length = numberParam(params[0], "data length");
    return Number(ledger.svm.minimumBalanceForRentExemption(BigInt(length)));
  },
};

function encodeMaybeAccount(ledger: DevLedger, account: string, state: AccountState | null, config: Config, fallbackEncoding: "binary" | "base64") {
  if (!state) return null;
  return encodeAccount(account, state, {
    encoding: parseAccountEncoding(config.encoding, fallbackEncoding),
    dataSlice: config.dataSlice as { offset: number; length: number } | undefined,
    decimalsOf: (mint) => ledger.decimalsOf(mint),
  });
}
