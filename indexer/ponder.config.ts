// Ponder's generated types look for the config beside its root; the real one is at the top level.
export { default } from "../ponder.config.ts";
