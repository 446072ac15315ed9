import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { Credit } from "../../domain/settle.ts";

/** What a port needs from the process running it. `databaseUrl` is for session locks on their own connection. */
export type RailContext = { config: Config; db: Db; logger: Logger; databaseUrl?: string };

export type PaymentKind = PaymentRow["kind"];

/** Where a credit came from; `transfer` means funds sit at an address the service sweeps. */
export type CreditSource = NonNullable<PaymentRow["completedVia"]>;

/**
 * A credit with the transaction that carries it, where it was found, and who paid it: the
 * address a refund goes back to by default (EVM: the transfer's `from` or the settlement
 * event's payer; Solana: the owner of the token account the money left; a bridge: the
 * sender of the origin-chain deposit), in the chain's canonical form. Null when it is not
 * known (a submission or simulation ingest has not read, several sources in one transaction).
 */
export type SourcedCredit = Credit & { txHash: string; source: CreditSource; payer: string | null };
