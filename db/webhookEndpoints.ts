import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { SecretBox } from "../domain/secretBox.ts";
import { generateWebhookSecret } from "../domain/webhookSignature.ts";
import type { Db } from "./client.ts";
import { webhookDeliveries, webhookEndpoints, webhookSigningSecrets } from "./schema/index.ts";
import type { Mode } from "../domain/mode.ts";

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

type SecretColumns = { secret: string; previousSecret: string | null };

/**
 * Secrets are stored sealed (see domain/secretBox.ts) and every row this module hands
 * out has them opened; `sealed` makes a new one for storage.
 */
export function openSecrets<T extends SecretColumns>(box: SecretBox, row: T): T {
  return { ...row, secret: box.open(row.secret), previousSecret: row.previousSecret === null ? null : box.open(row.previousSecret) };
}
const sealed = (box: SecretBox) => box.seal(generateWebhookSecret());

/** The secrets that sign now: the current one, and the previous one while its overlap lasts. */
export function signingSecrets(row: { secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null }, now = new Date()): string[] {
  return row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? [row.secret, row.previousSecret] : [row.secret];
}

export async function insertWebhookEndpoint(
  db: Db,
  box: SecretBox,
  values: { merchantId: string; mode: Mode; url: string; events: string[]; description?: string | null },
): Promise<WebhookEndpointRow> {
  const [row] = await db
    .insert(webhookEndpoints)
    .values({ ...values, description: values.description ?? null, secret: sealed(box) })
    .returning();
  return openSecrets(box, row!);
}

/**
 * `insertWebhookEndpoint` unless the merchant already has `limit` endpoints in that mode
 * (then null). Registrations of one merchant and mode take turns, so concurrent ones
 * cannot pass the limit together.
 */
export async function insertWebhookEndpointWithin(
  db: Db,
  box: SecretBox,
  values: Parameters<typeof insertWebhookEndpoint>[2],
  limit: number,
): Promise<WebhookEndpointRow | null> {
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`webhook endpoints of ${values.merchantId} ${values.mode}`}, 0))`);
    const [counted] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(webhookEndpoints)
      // A disabled endpoint (it answered 410) takes nothing more: re-adding its URL must not hit the limit because of it.
      .where(and(eq(webhookEndpoints.merchantId, values.merchantId), eq(webhookEndpoints.mode, values.mode), isNull(webhookEndpoints.deletedAt), isNull(webhookEndpoints.disabledAt)));
    if (counted!.n >= limit) return null;
    return insertWebhookEndpoint(tx, box, values);
  });
}

/** The merchant's endpoints of one mode (or both), oldest first; removed ones are left out. */
export async function listWebhookEndpoints(db: Db, box: SecretBox, merchantId: string, mode?: Mode): Promise<WebhookEndpointRow[]> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.merchantId, merchantId), mode ? eq(webhookEndpoints.mode, mode) : undefined, isNull(webhookEndpoints.deletedAt)))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  return rows.map((row) => openSecrets(box, row));
}

export async function findWebhookEndpoint(db: Db, box: SecretBox, id: string, options: { removed?: boolean } = {}): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), options.removed ? undefined : isNull(webhookEndpoints.deletedAt)));
  return row && openSecrets(box, row);
}

/** Stops pending deliveries to an endpoint that will take no more (removed, or answered 410). */
async function stopPendingDeliveries(tx: Db, endpointId: string, reason: string) {
  await tx
    .update(webhookDeliveries)
    .set({ status: "disabled", lastError: reason, updatedAt: sql`now()` })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, "pending")));
}

/** Removes an endpoint (kept for its history); its pending deliveries stop. */
export async function removeWebhookEndpoint(db: Db, id: string): Promise<WebhookEndpointRow | undefined> {
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const [row] = await tx
      .update(webhookEndpoints)
      .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.deletedAt)))
      .returning();
    if (row) await stopPendingDeliveries(tx, id, "endpoint removed");
    return row;
  });
}

/** An endpoint answered 410 Gone: nothing more is sent to it, pending deliveries included. */
export async function disableWebhookEndpoint(db: Db, id: string, reason: string): Promise<void> {
  await db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    await tx
      .update(webhookEndpoints)
      .set({ disabledAt: sql`now()`, disabledReason: reason, updatedAt: sql`now()` })
      .where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.disabledAt)));
    await stopPendingDeliveries(tx, id, reason);
  });
}

/**
 * The previous secret after a rotation: the current one, signing for `overlapMs` more. A
 * rotation during an overlap (a retried or double-clicked request) keeps the previous
 * secret until the time the first rotation promised, rather than dropping it at once.
 * (Postgres evaluates these on the latest row version: concurrent rotations take turns.)
 */
function keepingOverlap(table: typeof webhookEndpoints | typeof webhookSigningSecrets, overlapMs: number) {
  const overlapping = sql`${table.previousSecretExpiresAt} is not null and ${table.previousSecretExpiresAt} > now()`;
  return {
    previousSecret: sql`case when ${overlapping} then ${table.previousSecret} else ${table.secret} end`,
    previousSecretExpiresAt: sql`case when ${overlapping} then ${table.previousSecretExpiresAt} else now() + make_interval(secs => ${overlapMs / 1000}::double precision) end`,
  };
}

/** A new secret; the old one keeps signing (a second signature) for `overlapMs`, or to the end of an overlap under way. */
export async function rotateWebhookEndpointSecret(db: Db, box: SecretBox, id: string, overlapMs: number): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      ...keepingOverlap(webhookEndpoints, overlapMs),
      secret: sealed(box),
      updatedAt: sql`now()`,
    })
    .where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.deletedAt)))
    .returning();
  return row && openSecrets(box, row);
}

export type SigningSecretRow = typeof webhookSigningSecrets.$inferSelect;

/** The merchant's secret for `callbackUrl` deliveries in this mode, created on first use. */
export async function callbackSigningSecret(db: Db, box: SecretBox, merchantId: string, mode: Mode): Promise<SigningSecretRow> {
  const where = and(eq(webhookSigningSecrets.merchantId, merchantId), eq(webhookSigningSecrets.mode, mode));
  const [existing] = await db.select().from(webhookSigningSecrets).where(where);
  if (existing) return openSecrets(box, existing);
  await db.insert(webhookSigningSecrets).values({ merchantId, mode, secret: sealed(box) }).onConflictDoNothing();
  const [row] = await db.select().from(webhookSigningSecrets).where(where);
  return openSecrets(box, row!);
}

/** Rotates the `callbackUrl` secret with the same overlap as an endpoint's. */
export async function rotateCallbackSigningSecret(db: Db, box: SecretBox, merchantId: string, mode: Mode, overlapMs: number): Promise<SigningSecretRow> {
  await callbackSigningSecret(db, box, merchantId, mode);
  const [row] = await db
    .update(webhookSigningSecrets)
    .set({
      ...keepingOverlap(webhookSigningSecrets, overlapMs),
      secret: sealed(box),
      updatedAt: sql`now()`,
    })
    .where(and(eq(webhookSigningSecrets.merchantId, merchantId), eq(webhookSigningSecrets.mode, mode)))
    .returning();
  return openSecrets(box, row!);
}
