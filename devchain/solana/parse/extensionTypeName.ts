import { ExtensionType } from "@solana/spl-token";

// Where real nodes' UiExtensionType differs from spl-token's enum name.
const renamed: Partial<Record<ExtensionType, string>> = {
  [ExtensionType.ScaledUiAmountConfig]: "scaledUiAmount",
  [ExtensionType.PausableConfig]: "pausable",
};

/** The camelCase name real nodes give a Token-2022 extension type ("transferFeeConfig"). */
export function extensionTypeName(type: ExtensionType): string {
  const name = renamed[type] ?? ExtensionType[type];
  if (name === undefined) return "unparseableExtension";
  return name.charAt(0).toLowerCase() + name.slice(1);
}
