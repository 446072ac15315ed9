import { Elysia } from "elysia";
import { findMerchantPayment } from "../../db/payments.ts";
import { transfersOutOf } from "../../db/transfersOut.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { NotFoundError, PaymentLookupError, ServiceUnavailableError, ValidationError } from "../../domain/errors.ts";
import type { Mode } from "../../domain/mode.ts";
import { explorerAddressUrl } from "../../domain/explorerAddressUrl.ts";
import { methodFor, portsOf } from "../../rails/index.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin } from "../plugins/auth.ts";
import { presentDeposit } from "../presenters/deposit.ts";
import { presentRefundRequestOutcome } from "../presenters/refundRequest.ts";
import { requestRefund } from "../../payouts/index.ts";
import { presentNetwork } from "../presenters/network.ts";
import { paymentUriOf } from "../presenters/payment.ts";
import { anyPaymentIdParams, createDepositBody, createPaymentHeaders, paymentIdParams, refundRequestBody, uuidPattern } from "../schemas.ts";
import { answerCreation } from "../services/answerCreation.ts";
import { requirePayment } from "../services/requirePayment.ts";

/**
 * The client SDK's `existingPaymentId`: the wallet payment its customer turned away from to
 * pay by deposit address instead. It must be one of the caller's (a 400 naming the field
 * otherwise, the same whether it exists elsewhere or not); it stays as it is and expires by
 * itself, so money already on its way to it is still credited (or owed back).
 */
async function assertReplaceable(deps: ApiDeps, auth: { merchantId: string; mode: Mode }, existingPaymentId: string | undefined): Promise<void> {
  if (existingPaymentId === undefined) return;
  const found = uuidPattern.test(existingPaymentId) ? await findMerchantPayment(deps.db, auth.merchantId, auth.mode, existingPaymentId) : undefined;
  if (!found) throw new ValidationError("existingPaymentId", `Invalid field 'existingPaymentId': no payment of this account with id ${existingPaymentId}`);
}

/** The deposit window is fixed by the spec: fifteen minutes, not settable. */
export const DEPOSIT_EXPIRES_IN = 15 * 60;

/** Deposit-address payments: a unique counterfactual address per payment, swept to the merchant. */
export const depositRoutes = (deps: ApiDeps) => {
  const { config, db } = deps;
  const networkOf = (chainId: string) => config.networks.find((n) => n.chainId === chainId);

  return new Elysia({ prefix: "/deposits", tags: ["Deposits"] })
    .use(authPlugin(deps.credentials))
    .get(
      "/chains",
      () => ({
        success: true,
        chains: config.networks
          .filter((n) => n.enabled && methodFor(n, "deposit")?.supports(n))
          .map((n) => ({
            ...presentNetwork(n),
            requiredConfirmations: n.requiredConfirmations,
            tokens: n.tokens.map((tk) => ({ symbol: tk.symbol, contractAddress: tk.address, decimals: tk.decimals })),
          })),
      }),
      { detail: { summary: "Chains that support deposit-address payments" } },
    )
    .get(
      "/supported-chains",
      () => ({
        success: true,
        // The client SDK's list: numbered chains (its `chainId` is a number); /deposits/chains lists every one.
        chains: config.networks
          .filter((n) => n.enabled && /^\d{1,15}$/.test(n.chainId) && methodFor(n, "deposit")?.supports(n))
          .map((n) => ({ chainId: Number(n.chainId), name: n.name, shortName: n.shortName, confirmations: n.requiredConfirmations })),
      }),
      { detail: { summary: "Deposit-address chains as the client SDK lists them: {chainId, name, confirmations}" } },
    )
    .post(
      "/create",
      async (request) => {
        // `expiresIn` is ignored: the window is fixed (documented in docs/decisions/evm-payments.md).
        await assertReplaceable(deps, request.auth, request.body.existingPaymentId);
        const created = await answerCreation(deps, request, { scope: "deposits.create", kind: "deposit", fixedExpiresIn: DEPOSIT_EXPIRES_IN });
        const payment = (created as { payment: Record<string, unknown> }).payment;
        const network = config.networks.find((n) => n.shortName === payment.network);
        return {
          success: true,
          payment: {
            id: payment.id,
            status: payment.status,
            depositAddress: payment.receiveAddress,
            amount: payment.amount,
            currency: payment.currency,
            token: payment.token,
            tokenAddress: payment.tokenAddress,
            decimals: payment.decimals,
            network: payment.network,
            chainId: payment.chainId,
            paymentUri: payment.paymentUri,
            checkoutUrl: payment.checkoutUrl,
            expiresAt: payment.expiresAt,
            createdAt: payment.createdAt,
            orderId: payment.orderId,
            metadata: payment.metadata,
            isTest: payment.isTest,
            agentId: payment.agentId,
            agentOwner: payment.agentOwner,
            // For the client SDK: how many confirmations complete it, and the address on the network's explorer.
            requiredConfirmations: payment.requiredConfirmations,
            explorer: { address: explorerAddressUrl(network?.explorerUrl ?? null, String(payment.receiveAddress)) },
          },
        };
      },
      {
        auth: "public",
        body: createDepositBody,
        headers: createPaymentHeaders,
        detail: { summary: "Create a deposit-address payment (expires in fifteen minutes; idempotent like /payments/create)" },
      },
    )
    .get(
      "/status/:paymentId",
      async ({ auth, params }) => {
        const id = params.paymentId;
        const payment = id !== null && uuidPattern.test(id) ? await findMerchantPayment(db, auth.merchantId, auth.mode, id) : undefined;
        if (!payment) throw new PaymentLookupError(id ?? "");
        const transfers = await transfersOutOf(db, payment.id);
        return { success: true, payment: presentDeposit(payment, networkOf(payment.chainId), transfers) };
      },
      { auth: "public", params: anyPaymentIdParams, detail: { summary: "Deposit status: received, remaining, owed back, refunds" } },
    )
    .get(
      "/balance/:paymentId",
      async ({ auth, params }) => {
        const payment = await requirePayment(db, auth, params.paymentId);
        const { network, chain, method } = portsOf(config, payment);
        // A Solana Pay payment's receive address is the merchant's own wallet: nothing there is the payment's.
        if (!payment.receiveAddress || !method.holdsFunds?.(payment)) throw new NotFoundError(`Payment ${payment.id} has no deposit address.`);
        // From the chain itself, not our records: shows funds that arrived but are not credited yet.
        const balanceRaw = await chain.balanceOf(network, payment, config.rpcTimeoutMs * 2).catch((error: Error) => {
          throw new ServiceUnavailableError(`Could not read the balance from ${network.name}: ${error.message.split("\n")[0]}`);
        });
        return {
          success: true,
          paymentId: payment.id,
          depositAddress: payment.receiveAddress,
          balance: formatAmount(balanceRaw, payment.tokenDecimals),
          balanceRaw: balanceRaw.toString(),
          decimals: payment.tokenDecimals,
          token: payment.tokenSymbol,
          tokenAddress: payment.tokenAddress,
          expectedAmount: formatAmount(payment.amount, payment.tokenDecimals),
          // Complete once the amount is at the address, or was already swept after completing.
          isComplete: balanceRaw >= payment.amount || payment.status === "completed",
          confirmations: payment.confirmations,
          requiredConfirmations: network.requiredConfirmations,
          status: payment.status,
          paymentUri: paymentUriOf(payment, network),
        };
      },
      { auth: "public", params: paymentIdParams, detail: { summary: "What is at the deposit address now, read from the chain" } },
    )
    .post(
      "/refund-request/:paymentId",
      async ({ auth, params, body, set }) => {
        const payment = await requirePayment(db, auth, params.paymentId);
        // Key + secret is the merchant: any address. The public key may sit in a browser: the payer's rule.
        const outcome = await requestRefund(deps, payment, body, auth.scheme === "api_key" ? "merchant" : "customer");
        set.status = 202;
        return presentRefundRequestOutcome(outcome, payment, portsOf(config, payment).network);
      },
      {
        auth: "public",
        params: paymentIdParams,
        body: refundRequestBody,
        detail: {
          summary:
            "Refund what the payment owes the customer (overpaid, late, or expired with funds): with key + secret to any address; with the public key back to the address that paid, or once the merchant approves or a paying address signs",
        },
      },
    );
};
