import { z } from "zod";
import { buildConfigWith, loadConfigWithOrExit, redactConfigWith, type BuildConfigOptions, type Config, type RailConfigSection, type Role } from "../config/index.ts";
import { coreEnvSections } from "../config/env.ts";
import { plugins } from "./index.ts";

/** Every registered rail's part of the configuration. */
export const railConfigSections: readonly RailConfigSection[] = plugins.flatMap((p) => (p.config ? [p.config] : []));

/** Every environment variable the service reads: its own sections, then each rail's (`docs/configuration.md` is generated from these). */
export const envSections = [...coreEnvSections, ...railConfigSections.map((s) => s.env)];

export const envSchema = z.object(Object.assign({}, ...envSections.map((s) => s.shape)) as z.ZodRawShape);

/** Parses and validates the whole configuration once, every registered rail's section included (`buildConfigWith`). */
export const buildConfig = (env: Record<string, string | undefined> = process.env, options: BuildConfigOptions = {}): Config => buildConfigWith(railConfigSections, env, options);

/** Loads the config for a process entry point, printing one clear line and exiting on error. */
export const loadConfigOrExit = (env: Record<string, string | undefined> = process.env, role?: Role): Config => loadConfigWithOrExit(railConfigSections, env, role);

/** Secret-free view of the config for logs, every rail's secrets included. */
export const redactConfig = (config: Config) => redactConfigWith(railConfigSections, config);
