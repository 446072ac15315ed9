/**
 * The Solana modules that need Solana's libraries, loaded on a port method's first call (Bun's
 * require loads an ES module synchronously, which the ports' synchronous methods need). What
 * every deployment calls — addresses, the read model, availability — loads no Solana library.
 */
export const lib = () => require("./libraryBacked.ts") as typeof import("./libraryBacked.ts");
