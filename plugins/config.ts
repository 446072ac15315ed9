import { z } from "zod";
import { buildConfigWith, catalogueOf, loadConfigWithOrExit, redactConfigWith, type BuildConfigOptions, type Config, type ConfigRails, type NetworkType, type NetworkTypeSpec, type RailConfigSection, type Role } from "../config/index.ts";
import { coreEnvSections } from "../config/env.ts";
import { plugins } from "./index.ts";

/** Every registered rail's part of the configuration. */
export const railConfigSections: readonly RailConfigSection[] = plugins.flatMap((p) => (p.config ? [p.config] : []));

/** Every registered network type's spec: its addresses, built-in networks and checks. */
export const networkTypes: readonly NetworkTypeSpec[] = plugins.flatMap((p) => (p.networkType ? [p.networkType] : []));

const rails: ConfigRails = { sections: railConfigSections, networkTypes };

/** The built-in networks of every registered type (before the environment is applied). */
export const catalogue = catalogueOf(networkTypes);

/** The spec of network type `type` (its address format: `.address`). */
export const networkTypeOf = (type: NetworkType): NetworkTypeSpec => networkTypes.find((t) => t.type === type)!;

/** Every environment variable the service reads: its own sections, then each rail's (`docs/configuration.md` is generated from these). */
export const envSections = [...coreEnvSections, ...railConfigSections.map((s) => s.env)];

export const envSchema = z.object(Object.assign({}, ...envSections.map((s) => s.shape)) as z.ZodRawShape);

/** Parses and validates the whole configuration once, every registered rail's section included (`buildConfigWith`). */
export const buildConfig = (env: Record<string, string | undefined> = process.env, options: BuildConfigOptions = {}): Config => buildConfigWith(rails, env, options);

/** Loads the config for a process entry point, printing one clear line and exiting on error. */
export const loadConfigOrExit = (env: Record<string, string | undefined> = process.env, role?: Role): Config => loadConfigWithOrExit(rails, env, role);

/** Secret-free view of the config for logs, every rail's secrets included. */
export const redactConfig = (config: Config) => redactConfigWith(railConfigSections, config);

/** An address's canonical form on a network type, or null when it is not a valid address there. */
export const normalizeAddress = (type: NetworkType, address: string): string | null => networkTypeOf(type).address.normalize(address);
