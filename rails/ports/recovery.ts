import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";

/** What `cli recover` runs with: the database only when it is there. */
export type RecoveryContext = { config: Config; db: Db | null; logger: Logger };

export type RecoveryOptions = {
  /** Where what is found goes when the deposit's own merchant cannot be told (Solana without the database); null: to that merchant. */
  destination: string | null;
  /** Deposits the operator names (EVM): a forwarder is known by its payment id and merchant wallet. */
  deposits: ReadonlyArray<{ paymentId: string; merchantWallet: string; depositAddress?: string }>;
  /** Solana: the first seed index read, and how many unused indexes in a row end the reading. */
  fromIndex: number;
  gap: number;
  /** Finds and reports; sends nothing. */
  dryRun: boolean;
};

/** One balance found at a deposit address, and what became of it. */
export type RecoveredDeposit = {
  address: string;
  token: string;
  amount: bigint;
  /** Where it went (or would go); null: nowhere known (the note says what to give). */
  to: string | null;
  txHash: string | null;
  note?: string;
};
