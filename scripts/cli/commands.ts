import type { Config, Mode } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { issueCredential, listCredentials, rotateCredential } from "../../db/credentials.ts";
import { createMerchant, listMerchants } from "../../db/merchants.ts";
import { setSettlementWallet, settlementWalletsByNetwork } from "../../db/settlementWallets.ts";
import { checkSettlementCurrency } from "../../api/services/checkSettlementCurrency.ts";
import { checkSettlementWallet } from "../../api/services/checkSettlementWallet.ts";
import { parseReturnOrigins } from "../../api/services/returnOrigins.ts";
import { listReturnOrigins, replaceReturnOrigins } from "../../db/returnOrigins.ts";
import type { CredentialKind } from "../../domain/credentials.ts";
import { AppError } from "../../domain/errors.ts";
import type { CliContext } from "./context.ts";
import { CommandFailedError, required, UsageError, type Flags } from "./flags.ts";
import { replay } from "./replay.ts";
import { health } from "./health.ts";
import { recover } from "./recover.ts";
import { merchantOf, oneOf } from "./lookups.ts";
import { transferCommands } from "./transfers.ts";
import { webhookCommands } from "./webhooks.ts";
import { userCommands } from "./users.ts";
import { ingests } from "../../rails/index.ts";

export { CommandFailedError, UsageError, type Flags } from "./flags.ts";
export type { CliContext } from "./context.ts";

const showCredential = (c: { kind: CredentialKind; mode: Mode; key: string; secret: string | null }) =>
  [
    `${c.kind === "public" ? "Public key" : "API key"} (${c.mode}): ${c.key}`,
    ...(c.secret ? [`API secret (${c.mode}): ${c.secret}`, "The secret is shown once and stored only as a hash: keep it now."] : []),
  ].join("\n");


/**
 * The operator's commands. Each returns the text to print; the entry point owns I/O,
 * so the commands are tested against a real database without a terminal.
 */
export const commands: Record<string, (ctx: CliContext, flags: Flags) => Promise<string>> = {
  async "merchant create"({ db, config }, flags) {
    // Stats and settlement rates are priced in it: a currency without a rate would make them fail.
    const checked = await checkSettlementCurrency(config, typeof flags.currency === "string" ? flags.currency : "USD");
    if ("unreadable" in checked) throw new CommandFailedError(`--currency: ${checked.unreadable}; try again`);
    if ("refused" in checked) throw new UsageError(`--currency: ${checked.refused}`);
    const settlementCurrency = checked.currency;
    const merchant = await createMerchant(db, {
      name: required(flags, "name"),
      email: typeof flags.email === "string" ? flags.email : null,
      settlementCurrency,
      isNairaMerchant: flags.naira === true,
    });
    const issued = [];
    for (const mode of ["test", "live"] as const) {
      for (const kind of ["public", "secret"] as const) issued.push(await issueCredential(db, merchant.id, kind, mode));
    }
    return [`Merchant ${merchant.name}: ${merchant.id}`, ...issued.map(showCredential)].join("\n");
  },

  async "merchant list"({ db }) {
    const rows = await listMerchants(db);
    return rows.length === 0 ? "No merchants." : rows.map((m) => `${m.id}  ${m.name}${m.email ? `  <${m.email}>` : ""}`).join("\n");
  },

  async "keys issue"({ db }, flags) {
    const merchant = await merchantOf(db, flags);
    return showCredential(await issueCredential(db, merchant.id, oneOf(flags, "kind", ["public", "secret"]), oneOf(flags, "mode", ["test", "live"])));
  },

  async "keys rotate"({ db }, flags) {
    const merchant = await merchantOf(db, flags);
    const issued = await rotateCredential(db, merchant.id, oneOf(flags, "kind", ["public", "secret"]), oneOf(flags, "mode", ["test", "live"]));
    return `${showCredential(issued)}\nEarlier ${issued.kind} ${issued.mode} keys of this merchant are revoked.`;
  },

  async "keys list"({ db }, flags) {
    const merchant = await merchantOf(db, flags);
    const rows = await listCredentials(db, merchant.id);
    return rows
      .map((c) => `${c.keyPrefix}  ${c.kind}  ${c.mode}  created ${c.createdAt.toISOString()}${c.revokedAt ? `  revoked ${c.revokedAt.toISOString()}` : "  active"}`)
      .join("\n");
  },

  async "wallet set"({ db, config }, flags) {
    const merchant = await merchantOf(db, flags);
    const shortName = required(flags, "network");
    const network = config.networks.find((n) => n.shortName === shortName);
    if (!network) throw new UsageError(`--network: unknown network "${shortName}" (one of: ${config.networks.map((n) => n.shortName).join(", ")})`);
    const given = required(flags, "address");
    const checked = await checkSettlementWallet(network, given).catch((error: Error) => {
      throw new CommandFailedError(`could not read ${given} on ${network.name}: ${error.message.split("\n")[0]}`);
    });
    if ("refused" in checked) throw new UsageError(`--address: ${checked.refused}`);
    const { address } = checked;
    await setSettlementWallet(db, merchant.id, network.id, address);
    return `Settlement wallet on ${network.name}: ${address}${network.enabled ? "" : " (note: this network has no RPC URL configured yet)"}`;
  },

  async "return-origins set"({ db }, flags) {
    const merchant = await merchantOf(db, flags);
    const mode = oneOf(flags, "mode", ["test", "live"]);
    // Required, so a forgotten flag never clears the list: an empty value does that.
    if (typeof flags.origins !== "string") throw new UsageError("--origins is required: a comma-separated list of origins (an empty value clears the list)");
    const given = flags.origins.split(",").map((o) => o.trim()).filter(Boolean);
    let origins: string[];
    try {
      origins = parseReturnOrigins(given);
    } catch (error) {
      // The same checks as the API, worded for the flag.
      if (error instanceof AppError) throw new UsageError(error.message.replace(/field 'origins(\[\d+\])?'/, "--origins"));
      throw error;
    }
    await replaceReturnOrigins(db, merchant.id, mode, origins);
    return origins.length === 0 ? `No return origins in ${mode} mode: public-key payments take no successUrl or cancelUrl.` : `Return origins in ${mode} mode: ${origins.join(", ")}`;
  },

  async "return-origins list"({ db }, flags) {
    const merchant = await merchantOf(db, flags);
    const lines = [];
    for (const mode of ["test", "live"] as const) lines.push(`${mode}: ${(await listReturnOrigins(db, merchant.id, mode)).join(", ") || "(none)"}`);
    return lines.join("\n");
  },

  ...webhookCommands,

  ...userCommands,

  async "indexer prune"({ db, config, logger }, flags) {
    const dryRun = flags["dry-run"] === true;
    const lines = [];
    for (const ingest of ingests()) {
      if (!ingest.pruneIngested) continue;
      const { removed, kept } = await ingest.pruneIngested({ db, config, logger }, { dryRun });
      lines.push(`${ingest.name}: ${dryRun ? "would remove" : "removed"} ${removed} indexed rows that are no payment's evidence; ${kept} stay`);
    }
    return lines.length > 0 ? lines.join("\n") : "Nothing to prune.";
  },

  replay,

  recover,

  health,

  ...transferCommands,

  async "wallet list"({ db, config }, flags) {
    const merchant = await merchantOf(db, flags);
    const wallets = await settlementWalletsByNetwork(db, merchant.id);
    return config.networks.map((n) => `${n.shortName.padEnd(14)} ${wallets.get(n.id) ?? "(not configured)"}`).join("\n");
  },
};

/**
 * The flags each command reads. Any other flag is refused rather than ignored: a `--dry-run`
 * given to a command that has none would otherwise do the real thing (revoke keys, cancel a
 * transfer) while the operator expected a preview.
 */
export const commandFlags: Record<string, readonly string[]> = {
  "merchant create": ["name", "email", "currency", "naira"],
  "merchant list": [],
  "keys issue": ["merchant", "kind", "mode"],
  "keys rotate": ["merchant", "kind", "mode"],
  "keys list": ["merchant"],
  "wallet set": ["merchant", "network", "address"],
  "wallet list": ["merchant"],
  "return-origins set": ["merchant", "mode", "origins"],
  "return-origins list": ["merchant"],
  "webhook add": ["merchant", "mode", "url", "events"],
  "webhook list": ["merchant", "mode"],
  "webhook remove": ["id"],
  "webhook rotate": ["id", "merchant", "mode"],
  "webhook secret": ["merchant", "mode"],
  "user invite": ["merchant", "email", "role"],
  "indexer prune": ["dry-run"],
  replay: ["network", "from", "to", "from-slot", "to-slot", "dry-run"],
  "transfers list": [],
  "transfers cancel": ["id"],
  recover: ["network", "destination", "deposits", "from-index", "gap", "dry-run"],
  "transfers sweep-native": ["payment"],
  health: [],
};

/**
 * The command a command line names (its first one or two words) and what it was given, or a
 * UsageError: a word left over (a value with spaces not quoted: `--name Acme Corp` must not
 * create "Acme") or a flag the command does not read.
 */
export function commandOf(positionals: readonly string[], flags: Flags): string | undefined {
  const names = [positionals.slice(0, 2).join(" "), positionals[0] ?? ""];
  // Own names only: `constructor` or `toString` must not reach Object.prototype's.
  const name = names.find((n) => Object.hasOwn(commands, n));
  if (!name) return undefined;
  const extra = positionals.slice(name.split(" ").length);
  if (extra.length > 0) throw new UsageError(`unexpected ${extra.map((w) => `'${w}'`).join(" ")} after \`${name}\` (quote a value that has spaces)`);
  const refused = Object.keys(flags).filter((f) => f !== "help" && flags[f] !== undefined && !(commandFlags[name] ?? []).includes(f));
  if (refused.length > 0) throw new UsageError(`\`${name}\` takes no ${refused.map((f) => `--${f}`).join(", ")}`);
  return name;
}

export const usage = `Usage: npm run cli -- <command> [flags]
  merchant create --name NAME [--email EMAIL] [--currency USD] [--naira]   create a merchant and its test and live keys
  merchant list
  keys issue  --merchant ID --kind public|secret --mode test|live            issue another key (secret shown once)
  keys rotate --merchant ID --kind public|secret --mode test|live            issue a new key and revoke the old ones
  keys list   --merchant ID
  wallet set  --merchant ID --network SHORT_NAME --address ADDRESS          set the settlement wallet on a network
  wallet list --merchant ID
  return-origins set  --merchant ID --mode test|live --origins https://a,https://b   where public-key payments may return
                                                                        the customer (successUrl, cancelUrl); replaces the list
  return-origins list --merchant ID
  webhook add    --merchant ID --mode test|live --url URL [--events a,b]   add an endpoint (all events unless --events); prints its secret
  webhook list   --merchant ID [--mode test|live]
  webhook remove --id ENDPOINT_ID
  webhook rotate --id ENDPOINT_ID                                       new secret; the old one also signs for WEBHOOK_SECRET_OVERLAP_HOURS
  webhook rotate --merchant ID --mode test|live                         the same for the secret that signs payments' callbackUrl webhooks
  webhook secret --merchant ID --mode test|live                         show the callbackUrl signing secret
  user invite --merchant ID --email EMAIL --role owner|developer|viewer  a one-time link to the merchant dashboard
  replay --network SHORT_NAME --from N --to M [--dry-run]             read blocks (Solana: slots, also --from-slot/--to-slot) N..M of a
                                                                        chain again, record evidence the indexer missed, reconcile what it touches
  indexer prune [--dry-run]                                             remove indexed transfers that are no payment's evidence
                                                                        (left by an indexer that recorded every transfer); never a payment's
  health                                                                each chain's head, indexed block and payability, and its RPC
                                                                        providers: in use, or dropped and why (error, wrong_chain, stuck, lagging)
  transfers list                                                        sweeps and refunds in flight (signed or waiting)
  transfers cancel --id TRANSFER_ID                                     spend a stuck sweep/refund's nonce on a transfer of nothing to the
                                                                        operator (later ones queue behind it); what it was to move is owed again
  recover --network SHORT_NAME [--destination ADDRESS] [--deposits FILE] [--from-index N] [--gap N] [--dry-run]
                                                                        sweep what deposit addresses still hold, even without the database:
                                                                        Solana from SOLANA_DEPOSIT_SEED (indexes read until --gap unused ones,
                                                                        200) to --destination or the merchant; EVM forwarders named in --deposits
                                                                        (paymentId,merchantWallet lines) or the database, to their merchant wallet
  transfers sweep-native --payment PAYMENT_ID                           forward native coin (ETH…) at an ended payment's deposit address to the
                                                                        merchant (done by itself when the payment ends; this is for coin sent later)

Exit codes: 0 done; 2 a usage error or a refusal (unknown id, nothing to cancel); 1 the command failed on
our side (a node, the operator key, the rates source): try again once it is fixed.`;
