/**
 * The network types the service runs with, by name: each rail that is one adds its name by
 * augmenting this interface from its own folder (`declare module`), so no layer outside it
 * names a type (see `rails/<name>/networkType.ts`).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each network type's module augmentation.
export interface NetworkTypes {}

/** Kind of chain a network runs on. */
export type NetworkType = keyof NetworkTypes & string;
