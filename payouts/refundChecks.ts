import type { Network } from "../config/index.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { AppError, RefundRefusedError, ServiceUnavailableError, ValidationError } from "../domain/errors.ts";
import { portsOn, type PaymentPorts } from "../rails/index.ts";
import { unreceivableAddresses } from "../rails/unreceivableAddresses.ts";
import type { PayoutDeps } from "./deps.ts";
import { REVERT_LIMIT, revertLimitReached } from "./revertLimit.ts";

/** A refundable payment's network, chain and method; a payment whose money the service does not hold is refused (409 `refund_not_held`). */
export function refundPorts(deps: Pick<PayoutDeps, "config">, payment: PaymentRow): PaymentPorts {
  const network = deps.config.networks.find((n) => n.chainId === payment.chainId);
  const ports = network && portsOn(network, payment);
  if (!ports) throw new ServiceUnavailableError(`The payment's network (chain ${payment.chainId}) is not available.`);
  if (!ports.method.holdsFunds?.(payment)) {
    throw new RefundRefusedError(
      "Nothing to refund from here: this payment was paid to the merchant's own wallet, so the service holds none of it; the merchant returns what is owed.",
      "refund_not_held",
    );
  }
  return ports;
}

/** A node that fails or does not answer is a 503 to retry, not a 500 (its error may name the RPC URL: logged, not answered). */
export const fromChain = <T>(deps: Pick<PayoutDeps, "logger">, network: Network, payment: PaymentRow, read: Promise<T>): Promise<T> =>
  read.catch((error: unknown) => {
    if (error instanceof AppError) throw error;
    deps.logger.warn({ err: error, payment: payment.id }, "refund: chain read failed");
    throw new ServiceUnavailableError(`The ${network.name} node did not answer; retry shortly.`);
  });

/** `address` in the chain's canonical form, or a 400 naming the field. */
export function refundAddress({ network, chain }: PaymentPorts, address: string): string {
  const normalized = chain.normalizeAddress(address);
  if (!normalized) throw new ValidationError("address", `Invalid field 'address': not a valid ${network.name} address`);
  return normalized;
}

/**
 * Refuses a destination tokens could not come back from: the payment's own address (a refund
 * there moves nothing, yet would count as paid back), the null address, the token's or the
 * service's contracts, or (read from the chain) an address that cannot hold the token.
 */
export async function checkDestination(deps: Pick<PayoutDeps, "logger">, { network, chain, method }: PaymentPorts, payment: PaymentRow, to: string): Promise<void> {
  if (method.ownAddresses?.(payment).includes(to)) {
    throw new ValidationError("address", "Invalid field 'address': cannot refund to the payment's own deposit address");
  }
  if (unreceivableAddresses(network, [payment.tokenAddress, payment.contractAddress]).has(to)) {
    throw new ValidationError("address", "Invalid field 'address': tokens sent there cannot come back (the zero address, the token's own contract or the service's contracts)");
  }
  const problem = await fromChain(deps, network, payment, chain.refundAddressProblem(network, payment, to, 20_000));
  if (problem) throw new ValidationError("address", `Invalid field 'address': tokens refunded there could not be spent: ${problem}`);
}

/** Refunds whose transfers keep reverting on chain (a blacklisted address) must not burn the operator's gas again and again. */
export async function assertNotReverting(deps: Pick<PayoutDeps, "db">, payment: PaymentRow): Promise<void> {
  if ((await revertLimitReached(deps.db, payment.id, "refund")) !== null) {
    throw new RefundRefusedError(
      `Refunds of this payment reverted on chain ${REVERT_LIMIT.times} times in the last ${REVERT_LIMIT.withinHours} hours; try another address later, or contact the merchant.`,
      "refund_reverting",
    );
  }
}
