import * as splToken from "@solana/spl-token";
import type { PublicKey } from "@solana/web3.js";
import { extensionTypeName } from "../parse/extensionTypeName.ts";

const { ExtensionType } = splToken;

/**
 * The `extensions` list of a jsonParsed Token-2022 mint or account, for the extensions a
 * payment service meets (transfer fees, close authority, immutable owner, ...); others
 * show as `unparseableExtension`.
 */
export function tokenExtensionsJson(state: splToken.Mint | splToken.Account): unknown[] {
  const isMint = "supply" in state;
  return splToken.getExtensionTypes(state.tlvData).map((type) => {
    const extension = extensionTypeName(type);
    const withState = (value: unknown) => (value === null ? { extension: "unparseableExtension" } : { extension, state: value });
    switch (type) {
      case ExtensionType.TransferFeeConfig: {
        const config = isMint ? splToken.getTransferFeeConfig(state) : null;
        return withState(
          config && {
            transferFeeConfigAuthority: optionalKey(config.transferFeeConfigAuthority),
            withdrawWithheldAuthority: optionalKey(config.withdrawWithheldAuthority),
            withheldAmount: Number(config.withheldAmount),
            olderTransferFee: transferFeeJson(config.olderTransferFee),
            newerTransferFee: transferFeeJson(config.newerTransferFee),
          },
        );
      }
      case ExtensionType.TransferFeeAmount: {
        const amount = isMint ? null : splToken.getTransferFeeAmount(state);
        return withState(amount && { withheldAmount: Number(amount.withheldAmount) });
      }
      case ExtensionType.MintCloseAuthority: {
        const value = isMint ? splToken.getMintCloseAuthority(state) : null;
        return withState(value && { closeAuthority: optionalKey(value.closeAuthority) });
      }
      case ExtensionType.PermanentDelegate: {
        const value = isMint ? splToken.getPermanentDelegate(state) : null;
        return withState(value && { delegate: optionalKey(value.delegate) });
      }
      case ExtensionType.MemoTransfer: {
        const value = isMint ? null : splToken.getMemoTransfer(state);
        return withState(value && { requireIncomingTransferMemos: value.requireIncomingTransferMemos });
      }
      case ExtensionType.ImmutableOwner:
      case ExtensionType.NonTransferable:
      case ExtensionType.NonTransferableAccount:
        return { extension };
      default:
        return { extension: "unparseableExtension" };
    }
  });
}

function transferFeeJson(fee: splToken.TransferFee) {
  return { epoch: Number(fee.epoch), maximumFee: Number(fee.maximumFee), transferFeeBasisPoints: fee.transferFeeBasisPoints };
}

/** Token-2022 stores "no authority" as the zero key. */
function optionalKey(key: PublicKey): string | null {
  return key.toBuffer().every((byte) => byte === 0) ? null : key.toBase58();
}
