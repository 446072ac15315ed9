import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { Keypair } from "@solana/web3.js";
import { HDKey } from "micro-key-producer/slip10.js";
import { queryRows, type Db } from "../../db/client.ts";
import type { SecretBox } from "../../domain/secretBox.ts";

/** The row holding the sealed master seed of every Solana deposit key. */
const SEED_ID = "solana-deposit-v1";
const seeds = new Map<string, Uint8Array>();

/**
 * The master seed (64 random bytes) deposit keys derive from, sealed with SECRETS_KEY
 * in `solana_deposit_seeds`. Created once, on first use, in its own statement (never
 * inside a caller's transaction that could roll it back after an address was handed
 * out); concurrent first uses agree on one. Cached per process; never logged.
 */
export async function depositSeed(db: Db, secrets: SecretBox): Promise<Uint8Array> {
  const cached = seeds.get(secrets.keyId);
  if (cached) return cached;
  const sealed = secrets.seal(Buffer.from(randomBytes(64)).toString("hex"));
  await db.execute(sql`insert into solana_deposit_seeds (id, sealed_seed) values (${SEED_ID}, ${sealed}) on conflict (id) do nothing`);
  const [row] = await queryRows<{ sealed_seed: string }>(db, sql`select sealed_seed from solana_deposit_seeds where id = ${SEED_ID}`);
  const seed = Uint8Array.from(Buffer.from(secrets.open(row!.sealed_seed), "hex"));
  if (seed.length !== 64) throw new Error("the stored Solana deposit seed is not 64 bytes");
  seeds.set(secrets.keyId, seed);
  return seed;
}

/**
 * The SLIP-0010 path of a payment's deposit key: Solana's `m/44'/501'` followed by the
 * payment's uuid (128 bits) cut into five hardened indexes of 31, 31, 31, 31 and 4 bits.
 * One uuid, one path: the key is re-derived from the seed and the payment id alone.
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

/** The deposit keypair of a payment (ed25519, SLIP-0010 from the master seed). */
export function depositKeypair(seed: Uint8Array, paymentId: string): Keypair {
  const key = HDKey.fromMasterSeed(seed).derive(depositKeyPath(paymentId));
  return Keypair.fromSeed(key.privateKey);
}
