import type { Config, FileNetwork, NetworkTypeSpec, RailConfigSection, Role } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { AgentPayments } from "./ports/agentPayments.ts";
import type { CrossChainPort } from "./ports/crossChain.ts";
import type { ChainPort, ChainIngest, CreatableMethod, EvidenceSource, PaymentKind, PaymentMethod } from "./types.ts";

/**
 * What one network type brings to the registry (`rails/registry.ts`): its chain, the ingest
 * that follows its chains, and the payment methods it takes, by kind. The types say what a
 * network type's folder exports; the registry maps each type to one of these.
 */
export type NetworkRails = {
  chain: ChainPort;
  evidence: ChainIngest;
  methods: { payment?: CreatableMethod; deposit?: CreatableMethod };
};

/**
 * A payment method chosen by the kind of payment whatever its network's type (cross-chain
 * payments arrive through a bridge), with the source of its evidence and, for cross-chain
 * payments, what their endpoints and job ask of the bridge (`crossChain`). The payment's
 * chain operations stay those of its network's chain.
 */
export type KindRails = {
  method: PaymentMethod;
  evidence: EvidenceSource;
  crossChain?: CrossChainPort;
  /** x402's facilitator (verify, settle), loaded on first use: its protocol's libraries load only in the processes that verify or settle. */
  agentPayments?: () => AgentPayments;
};

/**
 * What one rail declares to the service, registered once in `rails/plugins.ts`: its name (a
 * network type's, as its networks' `type` says, or a kind's rail), its part of the
 * configuration (environment section and typed settings), its tables (`rails/<name>/tables.ts`, which
 * drizzle-kit reads) and the process role it runs, if any. A declaration is light
 * (no db/ client, no chain library: Ponder's config builds the configuration from it): what
 * a role starts is imported on use, and so are its ports (`ports`), which `registry.ts` maps.
 */
export type RailPlugin = {
  name: string;
  /**
   * Its ports, loaded on the registry's first use (they import db/ and chain libraries, which
   * a declaration must not): a network type's chain, ingest and methods, or the method and
   * evidence of the payment kind it serves whatever the network (a bridge).
   */
  ports?: RailPorts;
  /** A network type's spec (its networks' `type` is `name`): address format, built-in networks, checks; none for a rail chosen by the kind of payment (the bridge). */
  networkType?: NetworkTypeSpec;
  config?: RailConfigSection;
  tables?: Readonly<Record<string, unknown>>;
  role?: RailRole;
};

/** How a rail's ports load: `network` for a network type (its plugin's `name`), `kind` and `rails` for a kind's rail. */
export type RailPorts = { network: () => NetworkRails } | { kind: PaymentKind; rails: () => KindRails };

/** A process role a rail runs (`bun scripts/role.ts <name>`), its `/metrics` port and what it starts. */
export type RailRole = {
  name: Role;
  /** Port of the role's `/metrics` (0: none). */
  metricsPort: (config: Config) => number;
  /** Starts the role's work; returns what stops it. */
  start: (ctx: RailRoleContext) => Promise<{ stop: () => Promise<void> }>;
};

export type RailRoleContext = { config: Config; logger: Logger; databaseUrl: string };

/**
 * A rail's local chain for the sandbox (`npm start`), dev-only: `rails/<name>/sandbox.ts`
 * exports it as `sandbox`, and the launcher finds it there by the registered rail's name
 * (`scripts/lib/sandboxChains.ts`). Not declared on the plugin: even a lazy import there would
 * put devchain into the roles' bundle (`scripts/build.ts`).
 */
export type RailSandbox = {
  /** The variables the sandbox sets for the rail (its well-known test keys); the operator's own settings win. */
  env: Readonly<Record<string, string>>;
  /** Starts the rail's local chains; what it started is stopped again if it fails. */
  start(): Promise<RunningSandbox>;
};

export type RunningSandbox = {
  /** Its chains, for the networks file. */
  networks: FileNetwork[];
  /** The sandbox merchant's settlement wallet on each of its networks, by short name. */
  merchantWallets: Record<string, string>;
  /** What `.data/dev-stack.json` tells scripts and tutorials of its accounts (its funded customer's keys). */
  devStack: Record<string, string>;
  stop(): Promise<void>;
};
