import { PublicKey, type AccountInfo } from "@solana/web3.js";
import type { AccountState } from "./accountState.ts";

/** The web3.js shape spl-token's unpack functions read. */
export function toAccountInfo(state: AccountState): AccountInfo<Buffer> {
  return {
    data: Buffer.from(state.data.buffer, state.data.byteOffset, state.data.byteLength),
    owner: new PublicKey(state.owner),
    lamports: Number(state.lamports),
    executable: state.executable,
  };
}
