/**
 * x402 against the sandbox, in one command (with `npm start` running in another terminal):
 *
 *   bun examples/x402/run.ts
 *
 * Starts a resource server of the sandbox merchant's own (Hono, one paid route behind the
 * official `@x402/hono` middleware pointed at this service's facilitator with the merchant's
 * key + secret), then pays that route once as an agent with the official client
 * (`@x402/fetch`, the sandbox customer's key), and prints what each side saw.
 */
import { readFileSync } from "node:fs";
import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { ExactEvmScheme as ExactEvmClientScheme, toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { paymentMiddleware } from "@x402/hono";
import { Hono } from "hono";
import { createPublicClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

type DevStack = {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  chains: Array<{ shortName: string; chainId: number | string; rpcUrl: string; tokens: Array<{ symbol: string; address: string }>; settlementContract: string | null }>;
  customerPrivateKey: Hex;
  merchantWallets: Record<string, string>;
};

const stack = JSON.parse(readFileSync(new URL("../../.data/dev-stack.json", import.meta.url), "utf8")) as DevStack;
const anvil = stack.chains.find((c) => c.shortName === "anvil")!;
const network = `eip155:${anvil.chainId}` as const;
const usdc = anvil.tokens.find((t) => t.symbol === "USDC")!.address;
const price = "10000"; // 0.01 USDC, in its smallest units

// ── The merchant's server ─────────────────────────────────────────────────────────
const auth = { "x-api-key": stack.apiKey, "x-api-secret": stack.apiSecret };
const facilitator = new HTTPFacilitatorClient({ url: `${stack.baseUrl}/api/v1/x402`, createAuthHeaders: async () => ({ verify: auth, settle: auth, supported: auth }) });
const app = new Hono();
app.use(
  paymentMiddleware(
    {
      "GET /report": {
        // payTo is the service's settlement contract: it pays your wallet less the service fee.
        accepts: { scheme: "exact", network, payTo: anvil.settlementContract!, price: { asset: usdc, amount: price, extra: { name: "USD Coin", version: "2" } } },
        description: "Today's market report",
      },
    },
    new x402ResourceServer(facilitator).register(network, new ExactEvmServerScheme()),
  ),
);
app.get("/report", (c) => c.json({ report: "all quiet" }));
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
const url = `http://127.0.0.1:${server.port}/report`;
console.log(`resource server: ${url} (0.01 USDC on ${network}, paid through ${anvil.settlementContract} to ${stack.merchantWallets.anvil})`);

// ── The agent ──────────────────────────────────────────────────────────────────────
const account = privateKeyToAccount(stack.customerPrivateKey);
const publicClient = createPublicClient({ transport: http(anvil.rpcUrl) });
const pay = wrapFetchWithPaymentFromConfig(fetch, {
  schemes: [{ network, client: new ExactEvmClientScheme(toClientEvmSigner(account, publicClient as never)) }],
  // The sandbox's USDC is not one of x402's default assets: allow it, up to the price.
  spendControls: { allowedAssets: [{ network, asset: usdc, maxAmountPerPayment: price }] },
});

const unpaid = await fetch(url);
console.log(`without paying: ${unpaid.status}`);
const response = await pay(url);
console.log(`paying as ${account.address}: ${response.status}`, await response.text());
const receipt = response.headers.get("payment-response");
if (receipt) console.log("settlement:", decodePaymentResponseHeader(receipt));
console.log("the payment, as the merchant lists it (kind x402, agent = payer):");
const list = await fetch(`${stack.baseUrl}/api/v1/payments/merchant/list?limit=1`, { headers: { "x-public-key": (JSON.parse(readFileSync(new URL("../../.data/dev-stack.json", import.meta.url), "utf8")) as { publicKey: string }).publicKey } });
console.log(JSON.stringify(((await list.json()) as { payments: unknown[] }).payments[0], null, 2));
server.stop(true);
process.exit(response.status === 200 ? 0 : 1);
