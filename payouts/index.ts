/** Money going out of the addresses the service holds: what is owed where, and when. */
export { NATIVE_COIN, sweepNativeCoin, type NativeSweepOutcome } from "./nativeSweep.ts";
