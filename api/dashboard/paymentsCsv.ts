import type { Config } from "../../config/index.ts";
import type { DashboardPaymentRow } from "../../db/dashboardPayments.ts";
import { formatAmount } from "../../domain/amounts.ts";

const HEADER = ["id", "createdAt", "status", "amount", "amountReceived", "token", "network", "orderId", "receiveAddress", "transactionHash"];

/** A CSV cell: quoted, quotes doubled, and a leading = + - @ defused so a spreadsheet never runs it as a formula. */
const cell = (value: string | null): string => {
  const text = value ?? "";
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replaceAll('"', '""')}"`;
};

/** The rows as CSV (RFC 4180, CRLF line ends), amounts as decimal strings in token units. */
export function paymentsCsv(config: Config, rows: readonly DashboardPaymentRow[]): string {
  const networkOf = (id: string) => config.networks.find((n) => n.id === id)?.shortName ?? id;
  const lines = [HEADER.join(",")];
  for (const p of rows) {
    lines.push(
      [p.id, p.createdAt.toISOString(), p.status, formatAmount(p.amount, p.tokenDecimals), formatAmount(p.amountReceived, p.tokenDecimals), p.tokenSymbol, networkOf(p.networkId), p.orderId, p.receiveAddress, p.completingTxHash]
        .map(cell)
        .join(","),
    );
  }
  return `${lines.join("\r\n")}\r\n`;
}
