// Local EVM chains: anvil, a viem Chain for it, test stablecoins and background traffic.
export { type AnvilInstance, AnvilStartError, anvilAccounts, anvilMnemonic, startAnvil, type StartAnvilParameters } from "./anvil.ts";
export { localChain } from "./localChain.ts";
export { type DeployedToken, type DeployTestTokensParameters, deployTestTokens, TestTokenDeployError, testTokenSpecs, type TestTokenSymbol } from "./deployTestTokens.ts";
export { createTransferGenerator } from "./transferGenerator.ts";
export { testStablecoinAbi, testStablecoinBytecode } from "./artifacts/index.ts";
