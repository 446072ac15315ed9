/** Test keys see test networks and sandbox endpoints; live keys see mainnets. Defined once. */
export const modes = ["test", "live"] as const;

export type Mode = (typeof modes)[number];
