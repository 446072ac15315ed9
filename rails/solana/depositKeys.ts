import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import { Keypair } from "@solana/web3.js";
import { HDKey } from "micro-key-producer/slip10.js";
import { queryRows, type Db } from "../../db/client.ts";
import { findSolanaDepositAddress } from "./depositAddressRows.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { ServiceUnavailableError } from "../../domain/errors.ts";
import type { SecretBox } from "../../domain/secretBox.ts";
import type { RailContext } from "../types.ts";

/** SLIP-0010 hardened offset. */
const HARDENED = 0x8000_0000;

/**
 * The name of a seed in the database (`solana_deposit_addresses.seed_id`): a digest of it,
 * not it. Tells addresses of one seed from another's; reveals nothing of the seed.
 */
export const depositSeedId = (seed: Uint8Array): string => createHash("sha256").update("stablepay solana deposit seed id\0").update(seed).digest("hex").slice(0, 16);

/** The SLIP-0010 path of pool address `index`: Solana wallets' own `m/44'/501'/<account>'/0'`. */
export const poolKeyPath = (index: number): string => `m/44'/501'/${index}'/0'`;

/** Derivers by seed: `m/44'/501'` is derived once per seed, each index from it. */
const accountsNodes = new Map<string, HDKey>();

/** The keypair of pool address `index` under `seed` (SLIP-0010, ed25519). */
export function poolKeypair(seed: Uint8Array, index: number): Keypair {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED) throw new Error(`not a deposit key index: ${index}`);
  const id = depositSeedId(seed);
  let node = accountsNodes.get(id);
  if (!node) accountsNodes.set(id, (node = HDKey.fromMasterSeed(seed).derive("m/44'/501'")));
  return Keypair.fromSeed(node.deriveChild(HARDENED + index).deriveChild(HARDENED).privateKey);
}

/** The row holding the legacy sealed master seed. */
const LEGACY_SEED_ID = "solana-deposit-v1";

/**
 * Legacy: the sealed master seed (in `solana_deposit_seeds`) that deposit keys of payments
 * created before the address pool derive from; null when the database holds none. Read
 * only to sign for those addresses (a sweep or refund: rare, so read each time); never created any more. Never logged.
 */
export async function legacyDepositSeed(db: Db, secrets: SecretBox): Promise<Uint8Array | null> {
  const [row] = await queryRows<{ sealed_seed: string }>(db, sql`select sealed_seed from solana_deposit_seeds where id = ${LEGACY_SEED_ID}`);
  if (!row) return null;
  const seed = Uint8Array.from(Buffer.from(secrets.open(row.sealed_seed), "hex"));
  if (seed.length !== 64) throw new Error("the stored Solana deposit seed is not 64 bytes");
  return seed;
}

/**
 * Legacy: the SLIP-0010 path of a payment's deposit key before the pool: Solana's `m/44'/501'`
 * followed by the payment's uuid (128 bits) cut into five hardened indexes of 31, 31, 31, 31
 * and 4 bits.
 */
export function depositKeyPath(paymentId: string): string {
  const hex = paymentId.replaceAll("-", "");
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`not a uuid: ${paymentId}`);
  let bits = BigInt(`0x${hex}`);
  const parts: bigint[] = [];
  for (const width of [4n, 31n, 31n, 31n, 31n]) {
    parts.unshift(bits & ((1n << width) - 1n));
    bits >>= width;
  }
  return `m/44'/501'/${parts.map((p) => `${p}'`).join("/")}`;
}

/** Legacy: the deposit keypair of a payment created before the pool (SLIP-0010 from the sealed seed, by payment id). */
export function depositKeypair(seed: Uint8Array, paymentId: string): Keypair {
  const key = HDKey.fromMasterSeed(seed).derive(depositKeyPath(paymentId));
  return Keypair.fromSeed(key.privateKey);
}

/**
 * The key of a deposit payment's address, for the worker to sign its sweep or refund: by its
 * pool row (index under SOLANA_DEPOSIT_SEED), else, for a payment created before the pool, by
 * its id under the legacy sealed seed. Whatever derives it must give back the payment's own
 * address: a wrong seed is an error, never a transaction signed by another key.
 */
export async function depositKeyOf(ctx: Pick<RailContext, "config" | "db">, payment: Pick<PaymentRow, "id" | "receiveAddress">): Promise<Keypair> {
  const address = payment.receiveAddress;
  if (!address) throw new Error(`payment ${payment.id} has no deposit address`);
  const row = await findSolanaDepositAddress(ctx.db, address);
  let key: Keypair;
  if (row) {
    const seed = ctx.config.solana.depositSeed;
    if (!seed) throw new ServiceUnavailableError("Solana deposit keys cannot be derived here: SOLANA_DEPOSIT_SEED is not set (the worker's).");
    if (row.seedId !== depositSeedId(seed)) {
      throw new Error(`deposit address ${address} derives from another SOLANA_DEPOSIT_SEED (id ${row.seedId}) than the one configured (id ${depositSeedId(seed)})`);
    }
    key = poolKeypair(seed, row.index);
  } else {
    const legacy = await legacyDepositSeed(ctx.db, ctx.config.secrets);
    if (!legacy) throw new Error(`deposit address ${address} is neither in the address pool nor derivable from a legacy seed`);
    key = depositKeypair(legacy, payment.id);
  }
  if (key.publicKey.toBase58() !== address) throw new Error(`the key derived for deposit address ${address} is another's (${key.publicKey.toBase58()}): wrong seed?`);
  return key;
}
