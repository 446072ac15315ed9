import type { z } from "zod";
import type { EnvSection } from "./env/section.ts";
import type { NetworkTypeSpec } from "./networkTypeSpec.ts";
import type { Role } from "./roles.ts";

/**
 * Each rail's parsed settings, by the key they take in `Config` (`config.solana`). A rail adds
 * its key by augmenting this interface from its own folder (`declare module`), so config/ names
 * no rail and imports nothing from `rails/`; the registration (`plugins/`) hands the sections in.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each rail's module augmentation.
export interface RailConfigs {}

/** The `/metrics` port of each rail's own role, by the rail's key (`config.operator.metricsPorts.solana`); augmented as `RailConfigs` is. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each rail's module augmentation.
export interface RailMetricsPorts {}

/** A rail's part of the configuration: its environment section and how it becomes its typed settings (a ConfigError naming the variable at fault). */
export type RailConfigSection<K extends keyof RailConfigs = keyof RailConfigs, S extends z.ZodRawShape = z.ZodRawShape> = {
  key: K;
  env: EnvSection<S>;
  build(e: z.infer<z.ZodObject<S>>): RailConfigs[K];
  /** The port of the rail's role's `/metrics` (0: none), where it runs one. */
  metricsPort?(e: z.infer<z.ZodObject<S>>): number;
  /** The process role the rail runs, if any (STABLEPAY_ROLE may name it). */
  role?: Role;
  /** Each of the rail's secrets that signs for money, and the one role that reads it (see `config/roles.ts`). */
  secretReaders?: Readonly<Record<string, Role>>;
  /** The settings without their secrets, for logs (`redactConfig`). */
  redact?(settings: RailConfigs[K]): unknown;
  /**
   * The public addresses a role without the rail's keys is given, as the variables it reads
   * them from (`{ SOLANA_OPERATOR_ADDRESS: … }`): the launcher hands them to every role, so the
   * API reports the operators' balances without holding a key.
   */
  publicAddresses?(settings: RailConfigs[K]): Readonly<Record<string, string | null>>;
};

/** What the registration hands configuration: every rail's section and every network type's spec. */
export type ConfigRails = { sections: readonly RailConfigSection[]; networkTypes: readonly NetworkTypeSpec[] };

/** Declares a rail's config section with its types checked against its own variables. */
export const railConfigSection = <K extends keyof RailConfigs, S extends z.ZodRawShape>(section: RailConfigSection<K, S>): RailConfigSection<K, S> => section;
