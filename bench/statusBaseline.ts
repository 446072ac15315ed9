/**
 * The peer baseline for `bench:status`: a plain Hono app on `pg` doing what the status read
 * does — the key looked up by its hash among active credentials, the payment read by id
 * and checked against the key's merchant and mode — and answering the same fields.
 * Run as its own process: `bun bench/statusBaseline.ts <port>` with DATABASE_URL set.
 */
import { createHash } from "node:crypto";
import { Hono } from "hono";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = new Hono();

/** Base units (numeric, as text) → decimal string. */
function units(value: string, decimals: number): string {
  const v = BigInt(value);
  const scale = 10n ** BigInt(decimals);
  const fraction = (v % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return fraction ? `${v / scale}.${fraction}` : `${v / scale}`;
}

app.get("/api/v1/payments/:id/status", async (c) => {
  const key = c.req.header("x-public-key");
  if (!key) return c.json({ success: false, error: "unauthorized" }, 401);
  const hash = createHash("sha256").update(key).digest("hex");
  const credential = await pool.query({
    name: "credential",
    text: "select merchant_id, mode, kind from api_credentials where key_hash = $1 and revoked_at is null",
    values: [hash],
  });
  const who = credential.rows[0];
  if (!who || who.kind !== "public") return c.json({ success: false, error: "unauthorized" }, 401);
  const result = await pool.query({
    name: "payment",
    text: `select id, status, amount, amount_received, amount_remaining, currency, confirmations, detected_at, confirmed_at, expires_at,
      bridge_status, completing_tx_hash, merchant_id, mode, token_decimals from payments where id = $1`,
    values: [c.req.param("id")],
  });
  const p = result.rows[0];
  if (!p || p.merchant_id !== who.merchant_id || p.mode !== who.mode) return c.json({ success: false, error: "payment_not_found" }, 500);
  return c.json({
    success: true,
    payment: {
      id: p.id,
      status: p.status,
      amount: units(p.amount, p.token_decimals),
      amountReceived: units(p.amount_received, p.token_decimals),
      amountRemaining: units(p.amount_remaining, p.token_decimals),
      currency: p.currency,
      confirmations: p.confirmations,
      detectedAt: p.detected_at?.toISOString() ?? null,
      confirmedAt: p.confirmed_at?.toISOString() ?? null,
      expiresAt: p.expires_at.toISOString(),
      bridgeStatus: p.bridge_status,
      transactionHash: p.completing_tx_hash,
    },
  });
});

Bun.serve({ port: Number(process.argv[2]), hostname: "127.0.0.1", fetch: app.fetch });
