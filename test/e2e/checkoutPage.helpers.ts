import { eq, sql } from "drizzle-orm";
import type { BrowserContext } from "playwright-core";
import type { Hex } from "viem";
import { payments } from "../../db/schema/index.ts";
import { createLogger } from "../../config/logger.ts";
import { reconcilePayments, watchIngest } from "../../reconcile/index.ts";
import { customer, type PaymentChain } from "../../harness/paymentChain.ts";
import type { TestApi } from "../../harness/testApi.ts";

/**
 * A test EIP-1193 wallet injected into every page of `context` as `window.ethereum`:
 * it answers for the sandbox customer, signs with the customer's key (viem's local
 * account: transactions, and `personal_sign` messages) and sends to the anvil it is switched to (one of `chains`); reads go there as
 * they are. Returns the methods the page called, in order. `reject` declines the
 * connection as a user would (4001); switching to a chain it does not have is 4902.
 */
export async function injectTestWallet(
  context: BrowserContext,
  chains: PaymentChain | PaymentChain[],
  options: { chainId?: string; reject?: boolean } = {},
): Promise<string[]> {
  const calls: string[] = [];
  const known = Array.isArray(chains) ? chains : [chains];
  let chainId = options.chainId ?? "0x7a69";
  const current = () => known.find((c) => BigInt(c.network.chainId) === BigInt(chainId)) ?? known[0]!;
  const answer = (result: unknown) => JSON.stringify({ result });
  await context.exposeFunction("__testWalletRequest", async (json: string) => {
    const { method, params = [] } = JSON.parse(json) as { method: string; params?: any[] };
    calls.push(method);
    try {
      switch (method) {
        case "eth_requestAccounts":
        case "eth_accounts":
          if (options.reject) return JSON.stringify({ error: { code: 4001, message: "User rejected the request." } });
          return answer([customer.address]);
        case "eth_chainId":
          return answer(chainId);
        case "wallet_switchEthereumChain":
          if (known.length > 1 && !known.some((c) => BigInt(c.network.chainId) === BigInt(params[0].chainId)))
            return JSON.stringify({ error: { code: 4902, message: "Unrecognized chain ID." } });
          chainId = params[0].chainId;
          return answer(null);
        case "personal_sign":
          // EIP-191: the message as 0x-hex bytes, then the account.
          return answer(await customer.signMessage({ message: { raw: params[0] as Hex } }));
        case "eth_sendTransaction": {
          const tx = params[0] as { to: Hex; data: Hex; value?: Hex };
          const hash = await current().customerWallet.sendTransaction({ account: customer, to: tx.to, data: tx.data, value: BigInt(tx.value ?? "0x0"), chain: null });
          return answer(hash);
        }
        default:
          return answer(await current().rpc(method, params));
      }
    } catch (error) {
      return JSON.stringify({ error: { code: -32603, message: (error as Error).message } });
    }
  });
  await context.addInitScript(() => {
    const bridge = (window as unknown as { __testWalletRequest: (json: string) => Promise<string> }).__testWalletRequest;
    (window as unknown as { ethereum: unknown }).ethereum = {
      isTestWallet: true,
      request: async ({ method, params }: { method: string; params?: unknown[] }) => {
        const reply = JSON.parse(await bridge(JSON.stringify({ method, params })));
        if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
        return reply.result;
      },
      on() {},
      removeListener() {},
    };
  });
  return calls;
}

/** Moves a payment's expiry into the past and reconciles it, as the expiry job would once its time came. */
export async function expirePayment(api: TestApi, id: string): Promise<void> {
  await api.db.update(payments).set({ expiresAt: sql`now() - interval '1 minute'` }).where(eq(payments.id, id));
  // The worker's watch finds the indexer at the chain's head: the chain is read past the new
  // expiry (the watch vouches for blocks stamped up to 30 s before it: one may still be arriving).
  await watchIngest({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }) });
  await reconcilePayments(api.db, api.config, [id]);
}
