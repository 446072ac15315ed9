import { randomUUID } from "node:crypto";
import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import type { NewPayment } from "../db/payments.ts";
import { payments } from "../db/schema/index.ts";

/**
 * Payment rows written straight to the database (list, stats and pagination tests need
 * hundreds, in exact states and at exact times, without a chain). Defaults: 1 USDC
 * (6 decimals) on `network`, pending, created now.
 */
export function paymentRowFactory(config: Config) {
  return (merchantId: string, over: Partial<NewPayment> & { network?: string } = {}): NewPayment => {
    const { network: shortName = "anvil", ...rest } = over;
    const network = config.networks.find((n) => n.shortName === shortName);
    if (!network) throw new Error(`no network ${shortName}`);
    const createdAt = rest.createdAt ?? new Date();
    const mode = rest.mode ?? (network.isTestnet ? "test" : "live");
    return {
      id: randomUUID(),
      merchantId,
      mode,
      isTest: mode === "test",
      status: "pending",
      amount: 1_000_000n,
      currency: "USDC",
      tokenSymbol: "USDC",
      tokenAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      tokenDecimals: 6,
      networkId: network.id,
      chainId: network.chainId,
      merchantWallet: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
      expiresAt: new Date(createdAt.getTime() + 1800_000),
      createdAt,
      updatedAt: createdAt,
      ...rest,
    };
  };
}

/** Inserts rows in batches; returns them as inserted. */
export async function insertPaymentRows(db: Db, rows: NewPayment[]): Promise<NewPayment[]> {
  for (let i = 0; i < rows.length; i += 100) await db.insert(payments).values(rows.slice(i, i + 100));
  return rows;
}
