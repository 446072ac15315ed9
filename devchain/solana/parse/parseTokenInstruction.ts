import * as splToken from "@solana/spl-token";
import type { TransactionInstruction } from "@solana/web3.js";
import { uiTokenAmount } from "../encode/uiTokenAmount.ts";
import { authoritySigners } from "./authoritySigners.ts";
import type { ParsedInstructionBody } from "./parsedInstruction.ts";
import { parseTokenExtensionInstruction } from "./parseTokenExtensionInstruction.ts";

// Real nodes' names for spl-token's AuthorityType values, in enum order.
const authorityTypes = [
  "mintTokens", "freezeAccount", "accountOwner", "closeAccount", "transferFeeConfig", "withheldWithdraw",
  "closeMint", "interestRate", "permanentDelegate", "confidentialTransferMint", "transferHookProgramId",
  "confidentialTransferFeeConfig", "metadataPointer", "groupPointer", "groupMemberPointer", "scaledUiAmount",
  "pause", "permissionedBurn",
];

/**
 * Parses an SPL Token or Token-2022 instruction into a real node's `{type, info}`
 * (decoding by spl-token); null when real nodes would not parse it either.
 */
export function parseTokenInstruction(instruction: TransactionInstruction): ParsedInstructionBody | null {
  const extension = parseTokenExtensionInstruction(instruction);
  if (extension !== undefined) return extension;
  let d: splToken.DecodedInstruction;
  try {
    d = splToken.decodeInstruction(instruction, instruction.programId);
  } catch {
    return null;
  }
  if (splToken.isInitializeMintInstruction(d) || splToken.isInitializeMint2Instruction(d)) {
    const withRent = "rent" in d.keys;
    const info: Record<string, unknown> = { mint: d.keys.mint.pubkey.toBase58(), decimals: d.data.decimals, mintAuthority: d.data.mintAuthority.toBase58() };
    if ("rent" in d.keys) info.rentSysvar = d.keys.rent.pubkey.toBase58();
    if (d.data.freezeAuthority) info.freezeAuthority = d.data.freezeAuthority.toBase58();
    return { type: withRent ? "initializeMint" : "initializeMint2", info };
  }
  if (splToken.isInitializeAccountInstruction(d)) {
    const { account, mint, owner, rent } = d.keys;
    return { type: "initializeAccount", info: { account: account.pubkey.toBase58(), mint: mint.pubkey.toBase58(), owner: owner.pubkey.toBase58(), rentSysvar: rent.pubkey.toBase58() } };
  }
  if (splToken.isInitializeAccount2Instruction(d)) {
    const { account, mint, rent } = d.keys;
    return { type: "initializeAccount2", info: { account: account.pubkey.toBase58(), mint: mint.pubkey.toBase58(), owner: d.data.owner.toBase58(), rentSysvar: rent.pubkey.toBase58() } };
  }
  if (splToken.isInitializeAccount3Instruction(d)) {
    return { type: "initializeAccount3", info: { account: d.keys.account.pubkey.toBase58(), mint: d.keys.mint.pubkey.toBase58(), owner: d.data.owner.toBase58() } };
  }
  if (splToken.isInitializeMultisigInstruction(d)) {
    return {
      type: "initializeMultisig",
      info: { multisig: d.keys.account.pubkey.toBase58(), rentSysvar: d.keys.rent.pubkey.toBase58(), signers: d.keys.signers.map((s) => s.pubkey.toBase58()), m: d.data.m },
    };
  }
  if (splToken.isTransferInstruction(d)) {
    const { source, destination, owner, multiSigners } = d.keys;
    return {
      type: "transfer",
      info: { source: source.pubkey.toBase58(), destination: destination.pubkey.toBase58(), amount: d.data.amount.toString(), ...authoritySigners(owner, multiSigners, "authority", "multisigAuthority") },
    };
  }
  if (splToken.isTransferCheckedInstruction(d)) {
    const { source, mint, destination, owner, multiSigners } = d.keys;
    return {
      type: "transferChecked",
      info: {
        source: source.pubkey.toBase58(),
        mint: mint.pubkey.toBase58(),
        destination: destination.pubkey.toBase58(),
        tokenAmount: uiTokenAmount(d.data.amount, d.data.decimals),
        ...authoritySigners(owner, multiSigners, "authority", "multisigAuthority"),
      },
    };
  }
  if (splToken.isApproveInstruction(d)) {
    const { account, delegate, owner, multiSigners } = d.keys;
    return {
      type: "approve",
      info: { source: account.pubkey.toBase58(), delegate: delegate.pubkey.toBase58(), amount: d.data.amount.toString(), ...authoritySigners(owner, multiSigners, "owner", "multisigOwner") },
    };
  }
  if (splToken.isApproveCheckedInstruction(d)) {
    const { account, mint, delegate, owner, multiSigners } = d.keys;
    return {
      type: "approveChecked",
      info: {
        source: account.pubkey.toBase58(),
        mint: mint.pubkey.toBase58(),
        delegate: delegate.pubkey.toBase58(),
        tokenAmount: uiTokenAmount(d.data.amount, d.data.decimals),
        ...authoritySigners(owner, multiSigners, "owner", "multisigOwner"),
      },
    };
  }
  if (splToken.isRevokeInstruction(d)) {
    return { type: "revoke", info: { source: d.keys.account.pubkey.toBase58(), ...authoritySigners(d.keys.owner, d.keys.multiSigners, "owner", "multisigOwner") } };
  }
  if (splToken.isSetAuthorityInstruction(d)) {
    const authorityType = authorityTypes[d.data.authorityType] ?? String(d.data.authorityType);
    const owned = authorityType === "accountOwner" || authorityType === "closeAccount" ? "account" : "mint";
    return {
      type: "setAuthority",
      info: {
        [owned]: d.keys.account.pubkey.toBase58(),
        authorityType,
        newAuthority: d.data.newAuthority?.toBase58() ?? null,
        ...authoritySigners(d.keys.currentAuthority, d.keys.multiSigners, "authority", "multisigAuthority"),
      },
    };
  }
  if (splToken.isMintToInstruction(d) || splToken.isMintToCheckedInstruction(d)) {
    const checked = "decimals" in d.data;
    const amount = "decimals" in d.data ? { tokenAmount: uiTokenAmount(d.data.amount, d.data.decimals) } : { amount: d.data.amount.toString() };
    return {
      type: checked ? "mintToChecked" : "mintTo",
      info: { mint: d.keys.mint.pubkey.toBase58(), account: d.keys.destination.pubkey.toBase58(), ...amount, ...authoritySigners(d.keys.authority, d.keys.multiSigners, "mintAuthority", "multisigMintAuthority") },
    };
  }
  if (splToken.isBurnInstruction(d) || splToken.isBurnCheckedInstruction(d)) {
    const checked = "decimals" in d.data;
    const amount = "decimals" in d.data ? { tokenAmount: uiTokenAmount(d.data.amount, d.data.decimals) } : { amount: d.data.amount.toString() };
    return {
      type: checked ? "burnChecked" : "burn",
      info: { account: d.keys.account.pubkey.toBase58(), mint: d.keys.mint.pubkey.toBase58(), ...amount, ...authoritySigners(d.keys.owner, d.keys.multiSigners, "authority", "multisigAuthority") },
    };
  }
  if (splToken.isCloseAccountInstruction(d)) {
    return {
      type: "closeAccount",
      info: { account: d.keys.account.pubkey.toBase58(), destination: d.keys.destination.pubkey.toBase58(), ...authoritySigners(d.keys.authority, d.keys.multiSigners, "owner", "multisigOwner") },
    };
  }
  if (splToken.isFreezeAccountInstruction(d) || splToken.isThawAccountInstruction(d)) {
    return {
      type: splToken.isFreezeAccountInstruction(d) ? "freezeAccount" : "thawAccount",
      info: { account: d.keys.account.pubkey.toBase58(), mint: d.keys.mint.pubkey.toBase58(), ...authoritySigners(d.keys.authority, d.keys.multiSigners, "freezeAuthority", "multisigFreezeAuthority") },
    };
  }
  if (splToken.isSyncNativeInstruction(d)) return { type: "syncNative", info: { account: d.keys.account.pubkey.toBase58() } };
  if (splToken.isAmountToUiAmountInstruction(d)) return { type: "amountToUiAmount", info: { mint: d.keys.mint.pubkey.toBase58(), amount: d.data.amount.toString() } };
  if (splToken.isUiAmountToAmountInstruction(d)) {
    return { type: "uiAmountToAmount", info: { mint: d.keys.mint.pubkey.toBase58(), uiAmount: Buffer.from(d.data.amount).toString("utf8") } };
  }
  return null;
}
