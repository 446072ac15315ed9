import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Mode } from "../config/types.ts";
import { generateCredential, keyDisplayPrefix, sha256Hex, type CredentialKind } from "../domain/credentials.ts";
import { preparedPer, type Db } from "./client.ts";
import { apiCredentials } from "./schema/index.ts";

export type IssuedCredential = { id: string; kind: CredentialKind; mode: Mode; key: string; secret: string | null };

/** Issues a key (and secret); the plain text is returned once, only hashes are stored. */
export async function issueCredential(db: Db, merchantId: string, kind: CredentialKind, mode: Mode): Promise<IssuedCredential> {
  const { key, secret } = generateCredential(kind, mode);
  const [row] = await db
    .insert(apiCredentials)
    .values({
      merchantId,
      kind,
      mode,
      keyPrefix: keyDisplayPrefix(key),
      keyHash: sha256Hex(key),
      secretHash: secret === null ? null : sha256Hex(secret),
    })
    .returning({ id: apiCredentials.id });
  return { id: row!.id, kind, mode, key, secret };
}

/** Postgres channel announcing that credentials were revoked (API processes drop their cached lookups). */
export const CREDENTIALS_REVOKED_CHANNEL = "stablepay_credentials_revoked";

/** In-process listeners told after a revocation here commits (before any NOTIFY could arrive). */
const revokedHere = new Set<() => void>();
export function onCredentialsRevoked(listener: () => void): () => void {
  revokedHere.add(listener);
  return () => revokedHere.delete(listener);
}

/**
 * Rotation: issues a new credential and revokes the merchant's earlier ones of the
 * same kind and mode in one transaction, so there is never a moment with none.
 */
export async function rotateCredential(db: Db, merchantId: string, kind: CredentialKind, mode: Mode): Promise<IssuedCredential> {
  const issued = await db.transaction(async (tx) => {
    // Sent on commit: every API process forgets the keys it had looked up.
    await tx.execute(sql`select pg_notify(${CREDENTIALS_REVOKED_CHANNEL}, '')`);
    await tx
      .update(apiCredentials)
      .set({ revokedAt: sql`now()` })
      .where(
        and(
          eq(apiCredentials.merchantId, merchantId),
          eq(apiCredentials.kind, kind),
          eq(apiCredentials.mode, mode),
          isNull(apiCredentials.revokedAt),
        ),
      );
    return issueCredential(tx as unknown as Db, merchantId, kind, mode);
  });
  for (const listener of revokedHere) listener();
  return issued;
}

export type RevokedCredential = { id: string; kind: CredentialKind; keyPrefix: string };

/**
 * Revokes the merchant's active credentials of these kinds in one mode, with nothing issued in
 * their place (a leaked key is stopped now; new ones are issued separately). Meant to run inside
 * the caller's transaction: the NOTIFY goes out on its commit, and the caller tells this
 * process's caches after that commit with `credentialsRevokedHere`.
 */
export async function revokeCredentials(tx: Db, merchantId: string, mode: Mode, kinds: readonly CredentialKind[]): Promise<RevokedCredential[]> {
  await tx.execute(sql`select pg_notify(${CREDENTIALS_REVOKED_CHANNEL}, '')`);
  return tx
    .update(apiCredentials)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(apiCredentials.merchantId, merchantId),
        eq(apiCredentials.mode, mode),
        inArray(apiCredentials.kind, [...kinds]),
        isNull(apiCredentials.revokedAt),
      ),
    )
    .returning({ id: apiCredentials.id, kind: apiCredentials.kind, keyPrefix: apiCredentials.keyPrefix });
}

/** Tells this process's listeners that a revocation committed (call after the commit). */
export function credentialsRevokedHere(): void {
  for (const listener of revokedHere) listener();
}

const byKeyHash = preparedPer((db) =>
  db
    .select({
      id: apiCredentials.id,
      merchantId: apiCredentials.merchantId,
      kind: apiCredentials.kind,
      mode: apiCredentials.mode,
      secretHash: apiCredentials.secretHash,
    })
    .from(apiCredentials)
    .where(and(eq(apiCredentials.keyHash, sql.placeholder("keyHash")), isNull(apiCredentials.revokedAt)))
    .prepare("credential_by_key_hash"),
);

export type ActiveCredential = { id: string; merchantId: string; kind: CredentialKind; mode: Mode; secretHash: string | null };

/** An active credential by its key (looked up by the key's hash, on a prepared query). */
export async function findActiveCredential(db: Db, key: string): Promise<ActiveCredential | undefined> {
  const [row] = await byKeyHash(db).execute({ keyHash: sha256Hex(key) });
  return row;
}

export const listCredentials = (db: Db, merchantId: string) =>
  db
    .select({
      id: apiCredentials.id,
      kind: apiCredentials.kind,
      mode: apiCredentials.mode,
      keyPrefix: apiCredentials.keyPrefix,
      createdAt: apiCredentials.createdAt,
      revokedAt: apiCredentials.revokedAt,
    })
    .from(apiCredentials)
    .where(eq(apiCredentials.merchantId, merchantId))
    .orderBy(apiCredentials.createdAt);
