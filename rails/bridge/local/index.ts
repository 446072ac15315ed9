export { createLocalAdapter } from "./createLocalAdapter.ts";
export { readBooks } from "./books.ts";
export { localAmounts } from "./localAmounts.ts";
export { localChains } from "./localChains.ts";
export { startLocalRelayer } from "./relayer/startLocalRelayer.ts";
