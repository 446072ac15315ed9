import * as splToken from "@solana/spl-token";
import type { AccountMeta, TransactionInstruction } from "@solana/web3.js";
import { uiTokenAmount } from "../encode/uiTokenAmount.ts";
import { authoritySigners } from "./authoritySigners.ts";
import { extensionTypeName } from "./extensionTypeName.ts";
import type { ParsedInstructionBody } from "./parsedInstruction.ts";

const { TokenInstruction, TransferFeeInstruction } = splToken;

/**
 * The Token-2022-era instructions spl-token's generic decoder leaves out: account-size
 * helpers, mint extensions and the transfer-fee family. Undefined when the instruction
 * is not one of them, null when it is but real nodes would not parse it.
 */
export function parseTokenExtensionInstruction(instruction: TransactionInstruction): ParsedInstructionBody | null | undefined {
  const { programId, data } = instruction;
  const key = (index: number): string | undefined => instruction.keys[index]?.pubkey.toBase58();
  try {
    switch (data[0]) {
      case TokenInstruction.GetAccountDataSize: {
        const mint = key(0);
        if (mint === undefined) return null;
        const extensionTypes: string[] = [];
        for (let offset = 1; offset + 2 <= data.length; offset += 2) extensionTypes.push(extensionTypeName(data.readUInt16LE(offset)));
        return { type: "getAccountDataSize", info: extensionTypes.length > 0 ? { mint, extensionTypes } : { mint } };
      }
      case TokenInstruction.InitializeImmutableOwner: {
        const d = splToken.decodeInitializeImmutableOwnerInstruction(instruction, programId);
        return { type: "initializeImmutableOwner", info: { account: d.keys.account.pubkey.toBase58() } };
      }
      case TokenInstruction.InitializeMintCloseAuthority: {
        const d = splToken.decodeInitializeMintCloseAuthorityInstruction(instruction, programId);
        return { type: "initializeMintCloseAuthority", info: { mint: d.keys.mint.pubkey.toBase58(), newAuthority: d.data.closeAuthority?.toBase58() ?? null } };
      }
      case TokenInstruction.InitializePermanentDelegate: {
        const d = splToken.decodeInitializePermanentDelegateInstruction(instruction, programId);
        return { type: "initializePermanentDelegate", info: { mint: d.keys.mint.pubkey.toBase58(), delegate: d.data.delegate?.toBase58() ?? null } };
      }
      case TokenInstruction.InitializeNonTransferableMint: {
        const mint = key(0);
        return mint === undefined ? null : { type: "initializeNonTransferableMint", info: { mint } };
      }
      case TokenInstruction.TransferFeeExtension:
        return parseTransferFeeInstruction(instruction);
      default:
        return data[0] !== undefined && data[0] > TokenInstruction.UiAmountToAmount ? null : undefined;
    }
  } catch {
    return null;
  }
}

function parseTransferFeeInstruction(instruction: TransactionInstruction): ParsedInstructionBody | null {
  const { programId } = instruction;
  const signers = (authority: AccountMeta, extra: AccountMeta[] | null, single: string, multisig: string) =>
    authoritySigners(authority, extra ?? [], single, multisig);
  switch (instruction.data[1]) {
    case TransferFeeInstruction.InitializeTransferFeeConfig: {
      const d = splToken.decodeInitializeTransferFeeConfigInstruction(instruction, programId);
      const info: Record<string, unknown> = {
        mint: d.keys.mint.pubkey.toBase58(),
        transferFeeBasisPoints: d.data.transferFeeBasisPoints,
        maximumFee: Number(d.data.maximumFee),
      };
      if (d.data.transferFeeConfigAuthority) info.transferFeeConfigAuthority = d.data.transferFeeConfigAuthority.toBase58();
      if (d.data.withdrawWithheldAuthority) info.withdrawWithheldAuthority = d.data.withdrawWithheldAuthority.toBase58();
      return { type: "initializeTransferFeeConfig", info };
    }
    case TransferFeeInstruction.TransferCheckedWithFee: {
      const d = splToken.decodeTransferCheckedWithFeeInstruction(instruction, programId);
      return {
        type: "transferCheckedWithFee",
        info: {
          source: d.keys.source.pubkey.toBase58(),
          mint: d.keys.mint.pubkey.toBase58(),
          destination: d.keys.destination.pubkey.toBase58(),
          tokenAmount: uiTokenAmount(d.data.amount, d.data.decimals),
          feeAmount: uiTokenAmount(d.data.fee, d.data.decimals),
          ...signers(d.keys.authority, d.keys.signers, "authority", "multisigAuthority"),
        },
      };
    }
    case TransferFeeInstruction.WithdrawWithheldTokensFromMint: {
      const d = splToken.decodeWithdrawWithheldTokensFromMintInstruction(instruction, programId);
      return {
        type: "withdrawWithheldTokensFromMint",
        info: {
          mint: d.keys.mint.pubkey.toBase58(),
          feeRecipient: d.keys.destination.pubkey.toBase58(),
          ...signers(d.keys.authority, d.keys.signers, "withdrawWithheldAuthority", "multisigWithdrawWithheldAuthority"),
        },
      };
    }
    case TransferFeeInstruction.WithdrawWithheldTokensFromAccounts: {
      const d = splToken.decodeWithdrawWithheldTokensFromAccountsInstruction(instruction, programId);
      return {
        type: "withdrawWithheldTokensFromAccounts",
        info: {
          mint: d.keys.mint.pubkey.toBase58(),
          feeRecipient: d.keys.destination.pubkey.toBase58(),
          sourceAccounts: (d.keys.sources ?? []).map((source) => source.pubkey.toBase58()),
          ...signers(d.keys.authority, d.keys.signers, "withdrawWithheldAuthority", "multisigWithdrawWithheldAuthority"),
        },
      };
    }
    case TransferFeeInstruction.HarvestWithheldTokensToMint: {
      const d = splToken.decodeHarvestWithheldTokensToMintInstruction(instruction, programId);
      return {
        type: "harvestWithheldTokensToMint",
        info: { mint: d.keys.mint.pubkey.toBase58(), sourceAccounts: (d.keys.sources ?? []).map((source) => source.pubkey.toBase58()) },
      };
    }
    case TransferFeeInstruction.SetTransferFee: {
      const d = splToken.decodeSetTransferFeeInstruction(instruction, programId);
      return {
        type: "setTransferFee",
        info: {
          mint: d.keys.mint.pubkey.toBase58(),
          transferFeeBasisPoints: d.data.transferFeeBasisPoints,
          maximumFee: Number(d.data.maximumFee),
          ...signers(d.keys.authority, d.keys.signers, "transferFeeConfigAuthority", "multisigtransferFeeConfigAuthority"),
        },
      };
    }
    default:
      return null;
  }
}
