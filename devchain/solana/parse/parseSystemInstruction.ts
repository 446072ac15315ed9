import { SystemInstruction, type TransactionInstruction } from "@solana/web3.js";
import type { ParsedInstructionBody } from "./parsedInstruction.ts";

/**
 * Parses a System program instruction (decoded by web3.js) into a real node's
 * `{type, info}`; lamports and space are JSON numbers there, as on a real node.
 */
export function parseSystemInstruction(instruction: TransactionInstruction): ParsedInstructionBody | null {
  const key = (index: number) => instruction.keys[index]!.pubkey.toBase58();
  switch (SystemInstruction.decodeInstructionType(instruction)) {
    case "Create": {
      const d = SystemInstruction.decodeCreateAccount(instruction);
      return { type: "createAccount", info: { source: key(0), newAccount: key(1), lamports: d.lamports, space: d.space, owner: d.programId.toBase58() } };
    }
    case "Transfer": {
      const d = SystemInstruction.decodeTransfer(instruction);
      return { type: "transfer", info: { source: key(0), destination: key(1), lamports: Number(d.lamports) } };
    }
    case "TransferWithSeed": {
      const d = SystemInstruction.decodeTransferWithSeed(instruction);
      return {
        type: "transferWithSeed",
        info: { source: key(0), sourceBase: key(1), destination: key(2), lamports: Number(d.lamports), sourceSeed: d.seed, sourceOwner: d.programId.toBase58() },
      };
    }
    case "CreateWithSeed": {
      const d = SystemInstruction.decodeCreateWithSeed(instruction);
      return {
        type: "createAccountWithSeed",
        info: { source: key(0), newAccount: key(1), base: d.basePubkey.toBase58(), seed: d.seed, lamports: d.lamports, space: d.space, owner: d.programId.toBase58() },
      };
    }
    case "Allocate":
      return { type: "allocate", info: { account: key(0), space: SystemInstruction.decodeAllocate(instruction).space } };
    case "AllocateWithSeed": {
      const d = SystemInstruction.decodeAllocateWithSeed(instruction);
      return { type: "allocateWithSeed", info: { account: key(0), base: d.basePubkey.toBase58(), seed: d.seed, space: d.space, owner: d.programId.toBase58() } };
    }
    case "Assign":
      return { type: "assign", info: { account: key(0), owner: SystemInstruction.decodeAssign(instruction).programId.toBase58() } };
    case "AssignWithSeed": {
      const d = SystemInstruction.decodeAssignWithSeed(instruction);
      return { type: "assignWithSeed", info: { account: key(0), base: d.basePubkey.toBase58(), seed: d.seed, owner: d.programId.toBase58() } };
    }
    case "AdvanceNonceAccount":
      SystemInstruction.decodeNonceAdvance(instruction);
      return { type: "advanceNonce", info: { nonceAccount: key(0), recentBlockhashesSysvar: key(1), nonceAuthority: key(2) } };
    case "WithdrawNonceAccount": {
      const d = SystemInstruction.decodeNonceWithdraw(instruction);
      return {
        type: "withdrawFromNonce",
        info: { nonceAccount: key(0), destination: key(1), recentBlockhashesSysvar: key(2), rentSysvar: key(3), nonceAuthority: key(4), lamports: d.lamports },
      };
    }
    case "InitializeNonceAccount": {
      const d = SystemInstruction.decodeNonceInitialize(instruction);
      return { type: "initializeNonce", info: { nonceAccount: key(0), recentBlockhashesSysvar: key(1), rentSysvar: key(2), nonceAuthority: d.authorizedPubkey.toBase58() } };
    }
    case "AuthorizeNonceAccount": {
      const d = SystemInstruction.decodeNonceAuthorize(instruction);
      return { type: "authorizeNonce", info: { nonceAccount: key(0), nonceAuthority: key(1), newAuthorized: d.newAuthorizedPubkey.toBase58() } };
    }
    case "UpgradeNonceAccount":
      return { type: "upgradeNonce", info: { nonceAccount: key(0) } };
    default:
      return null;
  }
}
