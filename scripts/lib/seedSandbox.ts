import type { Network } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { findActiveCredential, issueCredential } from "../../db/credentials.ts";
import { createMerchant } from "../../db/merchants.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { callbackSigningSecret } from "../../db/webhookEndpoints.ts";
import type { SecretBox } from "../../domain/secretBox.ts";

export type SandboxMerchant = {
  merchantId: string;
  publicKey: string;
  apiKey: string;
  apiSecret: string;
  merchantWallets: Record<string, string>;
  /** Signs the test-mode webhooks sent to payments' `callbackUrl` (verify them with it). */
  webhookSecret: string;
};

/**
 * The sandbox merchant with test keys and a settlement wallet on every local chain
 * (`wallets`: the address per network short name, as the local chains give them).
 * Keys from an earlier run are reused while they are still valid in this database
 * (secrets are stored hashed, so they can only be known from that earlier run).
 */
export async function seedSandbox(
  db: Db,
  secrets: SecretBox,
  localNetworks: Network[],
  wallets: Record<string, string>,
  previous?: Partial<SandboxMerchant>,
): Promise<SandboxMerchant> {
  let merchantId: string | undefined;
  let keys: { publicKey: string; apiKey: string; apiSecret: string } | undefined;
  if (previous?.publicKey && previous.apiKey && previous.apiSecret) {
    const [pk, sk] = await Promise.all([findActiveCredential(db, previous.publicKey), findActiveCredential(db, previous.apiKey)]);
    if (pk && sk && pk.merchantId === sk.merchantId) {
      merchantId = pk.merchantId;
      keys = { publicKey: previous.publicKey, apiKey: previous.apiKey, apiSecret: previous.apiSecret };
    }
  }
  if (!merchantId || !keys) {
    const merchant = await createMerchant(db, { name: "Sandbox merchant", email: "sandbox@example.com" });
    merchantId = merchant.id;
    const [pk, sk] = await Promise.all([
      issueCredential(db, merchantId, "public", "test"),
      issueCredential(db, merchantId, "secret", "test"),
    ]);
    keys = { publicKey: pk.key, apiKey: sk.key, apiSecret: sk.secret! };
  }
  const merchantWallets: Record<string, string> = {};
  for (const network of localNetworks) {
    const wallet = wallets[network.shortName];
    if (!wallet) continue;
    await setSettlementWallet(db, merchantId, network.id, wallet);
    merchantWallets[network.shortName] = wallet;
  }
  const { secret: webhookSecret } = await callbackSigningSecret(db, secrets, merchantId, "test");
  return { merchantId, ...keys, merchantWallets, webhookSecret };
}
