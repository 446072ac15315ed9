import type { Network } from "../../config/index.ts";
import type { PaymentListRow } from "../../db/paymentList.ts";
import { formatAmount } from "../../domain/amounts.ts";

/** One entry of the merchant's payment list: amounts as decimal strings in the token. */
export const presentPaymentListItem = (p: PaymentListRow, network: Network | undefined) => ({
  id: p.id,
  status: p.status,
  amount: formatAmount(p.amount, p.tokenDecimals),
  amountReceived: formatAmount(p.amountReceived, p.tokenDecimals),
  currency: p.currency,
  token: p.tokenSymbol,
  network: network?.shortName ?? null,
  orderId: p.orderId,
  fiatAmount: p.fiatAmount,
  fiatCurrency: p.fiatCurrency,
  createdAt: p.createdAt.toISOString(),
  isTest: p.isTest,
  agentId: p.agentId,
  // Beside the agent id when the agent's creator named its owner (the MCP server does).
  ...(p.agentOwner !== null && { agentOwner: p.agentOwner }),
});
