import { type Account, unpackAccount, unpackMint } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import type { AccountState } from "../ledger/accountState.ts";
import type { DevLedger } from "../ledger/DevLedger.ts";
import { isTokenProgram } from "../ledger/programIds.ts";
import { toAccountInfo } from "../ledger/toAccountInfo.ts";
import { encodeAccount, parseAccountEncoding } from "../encode/encodeAccount.ts";
import { uiTokenAmount } from "../encode/uiTokenAmount.ts";
import { addressParam, configParam, querySlot, withContext } from "./params.ts";
import { RpcError } from "./RpcError.ts";
import type { RpcMethods } from "./rpcMethod.ts";

/** Token reads; amounts are integer strings in the token's smallest unit plus UI forms. */
export const tokenMethods: RpcMethods = {
  getTokenAccountBalance(params, ledger) {
    const account = addressParam(params[0]);
    const slot = querySlot(ledger, configParam(params, 1));
    const state = ledger.accountAtSlot(account, slot);
    const tokenAccount = state && unpackTokenAccount(account, state);
    const decimals = tokenAccount ? ledger.decimalsOf(tokenAccount.mint.toBase58()) : undefined;
    if (!tokenAccount || decimals === undefined) throw RpcError.invalidParams("Invalid param: not a Token account");
    return withContext(slot, uiTokenAmount(tokenAccount.amount, decimals));
  },

  getTokenSupply(params, ledger) {
    const mint = addressParam(params[0]);
    const slot = querySlot(ledger, configParam(params, 1));
    const state = ledger.accountAtSlot(mint, slot);
    const parsed = state && isTokenProgram(state.owner) ? attempt(() => unpackMint(new PublicKey(mint), toAccountInfo(state), new PublicKey(state.owner))) : undefined;
    if (!parsed) throw RpcError.invalidParams("Invalid param: not a Token mint");
    return withContext(slot, uiTokenAmount(parsed.supply, parsed.decimals));
  },

  getTokenAccountsByOwner(params, ledger) {
    return tokenAccountsBy("owner", params, ledger);
  },

  getTokenAccountsByDelegate(params, ledger) {
    return tokenAccountsBy("delegate", params, ledger);
  },

  getTokenLargestAccounts(params, ledger) {
    const mint = addressParam(params[0]);
    const slot = querySlot(ledger, configParam(params, 1));
    const mintState = ledger.accountAtSlot(mint, slot);
    const decimals = ledger.decimalsOf(mint);
    if (!mintState || decimals === undefined) throw RpcError.invalidParams("Invalid param: could not find mint");
    const largest = tokenAccountsAtSlot(ledger, mintState.owner, slot)
      .filter(({ tokenAccount }) => tokenAccount.mint.toBase58() === mint)
      .sort((a, b) => (a.tokenAccount.amount < b.tokenAccount.amount ? 1 : a.tokenAccount.amount > b.tokenAccount.amount ? -1 : 0))
      .slice(0, 20)
      .map(({ address, tokenAccount }) => ({ address, ...uiTokenAmount(tokenAccount.amount, decimals) }));
    return withContext(slot, largest);
  },
};

function tokenAccountsBy(role: "owner" | "delegate", params: unknown[], ledger: DevLedger) {
  const key = addressParam(params[0]);
  const filter = (params[1] ?? {}) as { mint?: unknown; programId?: unknown };
  const config = configParam(params, 2);
  const slot = querySlot(ledger, config);
  let programId: string;
  let mint: string | undefined;
  if (filter.mint !== undefined) {
    mint = addressParam(filter.mint);
    const mintState = ledger.accountAtSlot(mint, slot);
    if (!mintState || !isTokenProgram(mintState.owner)) throw RpcError.invalidParams("Invalid param: could not find mint");
    programId = mintState.owner;
  } else if (filter.programId !== undefined) {
    programId = addressParam(filter.programId);
    if (!isTokenProgram(programId)) throw RpcError.invalidParams("Invalid param: unrecognized Token program id");
  } else {
    throw RpcError.invalidParams("Invalid params: expected a mint or programId filter");
  }
  const encoding = parseAccountEncoding(config.encoding, "binary");
  const found = tokenAccountsAtSlot(ledger, programId, slot)
    .filter(({ tokenAccount }) => (role === "owner" ? tokenAccount.owner : tokenAccount.delegate)?.toBase58() === key)
    .filter(({ tokenAccount }) => mint === undefined || tokenAccount.mint.toBase58() === mint)
    .map(({ address, state }) => ({
      pubkey: address,
      account: encodeAccount(address, state, {
        encoding,
        dataSlice: config.dataSlice as { offset: number; length: number } | undefined,
        decimalsOf: (m) => ledger.decimalsOf(m),
      }),
    }));
  return withContext(slot, found);
}

function tokenAccountsAtSlot(ledger: DevLedger, programId: string, slot: number) {
  return ledger.programAccountsAtSlot(programId, slot).flatMap((address) => {
    const state = ledger.accountAtSlot(address, slot);
    const tokenAccount = state && unpackTokenAccount(address, state);
    return state && tokenAccount && tokenAccount.isInitialized ? [{ address, state, tokenAccount }] : [];
  });
}

function unpackTokenAccount(address: string, state: AccountState): Account | undefined {
  if (!isTokenProgram(state.owner)) return undefined;
  return attempt(() => unpackAccount(new PublicKey(address), toAccountInfo(state), new PublicKey(state.owner)));
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
