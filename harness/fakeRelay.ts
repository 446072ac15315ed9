import { createHmac, randomBytes } from "node:crypto";
import { encodeFunctionData, erc20Abi } from "viem";

/**
 * A loopback stand-in for Relay's API (docs.relay.link), answering with the response shapes
 * the docs show: `POST /quote/v2`, `GET /intents/status/v3`, `GET /requests/v3`. Each route
 * answers by a rule a test can replace (`on`) or by one-shot replies queued in front of it
 * (`queue`): a quote, an error `{message, errorCode}`, a 429 with Retry-After, a hang, bytes
 * that are not JSON. Every request is recorded with its headers and body.
 */

export type FakeRelayRoute = "POST /quote/v2" | "GET /intents/status/v3" | "GET /requests/v3";

export type FakeRelayRequest = {
  route: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  rawBody: string;
  body: unknown;
  at: number;
};

export type FakeRelayReply = {
  status?: number;
  /** A JSON body. */
  json?: unknown;
  /** A raw body instead (e.g. something that is not JSON). */
  text?: string;
  headers?: Record<string, string>;
  /** Never answer (until the server stops): exercises the client's timeout. */
  hang?: boolean;
};

export type FakeRelayResponder = (request: FakeRelayRequest, nth: number) => FakeRelayReply | Promise<FakeRelayReply>;

/** The quote body fields the fake reads to build its answer (what the adapter sends). */
export type RelayQuoteBody = {
  user: string;
  recipient: string;
  originChainId: number;
  destinationChainId: number;
  originCurrency: string;
  destinationCurrency: string;
  amount: string;
  tradeType: string;
  refundTo?: string;
};

const USDC_DECIMALS = 6;

export function startFakeRelay() {
  const received: FakeRelayRequest[] = [];
  const counts = new Map<string, number>();
  const queues = new Map<string, FakeRelayReply[]>();
  const hanging: (() => void)[] = [];
  const rules = new Map<string, FakeRelayResponder>([
    ["POST /quote/v2", (request) => ({ json: relayQuoteResponse({ request: request.body as RelayQuoteBody }) })],
    ["GET /intents/status/v3", () => ({ json: relayIntentStatus("waiting") })],
    ["GET /requests/v3", () => ({ json: { requests: [] } })],
  ]);

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(httpRequest) {
      const url = new URL(httpRequest.url);
      const route = `${httpRequest.method} ${url.pathname}`;
      const rawBody = await httpRequest.text();
      let body: unknown;
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined;
      } catch {
        body = undefined;
      }
      const headers: Record<string, string> = {};
      httpRequest.headers.forEach((value, name) => (headers[name] = value));
      const request: FakeRelayRequest = { route, query: Object.fromEntries(url.searchParams), headers, rawBody, body, at: Date.now() };
      received.push(request);
      const nth = (counts.get(route) ?? 0) + 1;
      counts.set(route, nth);

      const queued = queues.get(route)?.shift();
      const rule = rules.get(route);
      const reply: FakeRelayReply = queued ?? (rule ? await rule(request, nth) : { status: 404, json: { message: `Route ${route} not found`, statusCode: 404 } });
      if (reply.hang) {
        await new Promise<void>((resolve) => hanging.push(resolve));
        return new Response(null, { status: 503 });
      }
      const text = reply.text ?? (reply.json === undefined ? "" : JSON.stringify(reply.json));
      const replyHeaders: Record<string, string> = reply.text === undefined ? { "content-type": "application/json; charset=utf-8" } : {};
      return new Response(text, { status: reply.status ?? 200, headers: { ...replyHeaders, ...reply.headers } });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    /** Requests to one route, in arrival order. */
    at: (route: FakeRelayRoute) => received.filter((r) => r.route === route),
    /** Replace a route's rule. */
    on: (route: FakeRelayRoute, responder: FakeRelayResponder) => void rules.set(route, responder),
    /** Replies used once each, in order, before the route's rule answers again. */
    queue: (route: FakeRelayRoute, ...replies: FakeRelayReply[]) => void queues.set(route, [...(queues.get(route) ?? []), ...replies]),
    stop: () => {
      for (const release of hanging.splice(0)) release();
      server.stop(true);
    },
  };
}

export type FakeRelay = ReturnType<typeof startFakeRelay>;

/** A random 32-byte id, as Relay's request ids are. */
export const relayRequestId = () => `0x${randomBytes(32).toString("hex")}`;
/** A random lower-case address, as Relay returns deposit addresses. */
export const relayDepositAddress = () => `0x${randomBytes(20).toString("hex")}`;

function currency(chainId: number, address: string, symbol = "USDC", decimals = USDC_DECIMALS) {
  return { chainId, address, symbol, name: symbol === "USDC" ? "USD Coin" : symbol, decimals, metadata: { logoURI: "https://assets.relay.link/icons/1/light.png", verified: true } };
}

function amountOf(cur: ReturnType<typeof currency>, amount: bigint, minimumAmount = amount) {
  const scale = 10n ** BigInt(cur.decimals);
  const formatted = `${amount / scale}.${(amount % scale).toString().padStart(cur.decimals, "0")}`.replace(/\.?0+$/, "") || "0";
  return { currency: cur, amount: amount.toString(), amountFormatted: formatted, amountUsd: formatted, minimumAmount: minimumAmount.toString() };
}

/**
 * A `POST /quote/v2` answer for a deposit-address quote, shaped like the docs' example
 * (features/deposit-addresses.mdx): `steps[0]` with `depositAddress` and `requestId`,
 * `fees.{gas,relayer,relayerGas,relayerService,app,subsidized}`, `details.{currencyIn,
 * currencyOut,refundCurrency,...}`, `protocol.v2`. For EXACT_OUTPUT the customer sends the
 * requested amount plus the relayer fee.
 */
export function relayQuoteResponse(input: {
  request: RelayQuoteBody;
  requestId?: string;
  depositAddress?: string;
  relayerGas?: bigint;
  relayerService?: bigint;
  appFee?: bigint;
  /** Override what the customer must send (`details.currencyIn.amount`). */
  amountIn?: bigint;
  /** Override what the merchant receives (`details.currencyOut.amount`). */
  amountOut?: bigint;
}) {
  const { request } = input;
  const requestId = input.requestId ?? relayRequestId();
  const depositAddress = input.depositAddress ?? relayDepositAddress();
  const relayerGas = input.relayerGas ?? 12_000n;
  const relayerService = input.relayerService ?? 2_500n;
  const appFee = input.appFee ?? 0n;
  const requested = BigInt(request.amount);
  const amountOut = input.amountOut ?? requested;
  const amountIn = input.amountIn ?? requested + relayerGas + relayerService + appFee;
  const originToken = currency(request.originChainId, request.originCurrency.toLowerCase());
  const destinationToken = currency(request.destinationChainId, request.destinationCurrency.toLowerCase());
  const nativeOrigin = currency(request.originChainId, "0x0000000000000000000000000000000000000000", "ETH", 18);
  const deadline = Math.floor(Date.now() / 1000) + 1800;
  return {
    steps: [
      {
        id: "deposit",
        action: "Confirm transaction in your wallet",
        description: "Depositing funds to the relayer to execute the swap for USDC",
        kind: "transaction",
        items: [
          {
            status: "incomplete",
            data: {
              from: request.user,
              to: request.originCurrency,
              data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [depositAddress as `0x${string}`, amountIn] }),
              value: "0",
              chainId: request.originChainId,
              gas: "65000",
              maxFeePerGas: "6500000",
              maxPriorityFeePerGas: "1000000",
            },
            check: { endpoint: `/intents/status/v3?requestId=${requestId}`, method: "GET" },
          },
        ],
        requestId,
        depositAddress,
      },
    ],
    fees: {
      gas: amountOf(nativeOrigin, 143_425_703_256n),
      relayer: amountOf(originToken, relayerGas + relayerService),
      relayerGas: amountOf(originToken, relayerGas),
      relayerService: amountOf(originToken, relayerService),
      app: amountOf(originToken, appFee),
      subsidized: amountOf(originToken, 0n),
    },
    details: {
      operation: "bridge",
      sender: request.user,
      recipient: request.recipient,
      currencyIn: amountOf(originToken, amountIn),
      currencyOut: amountOf(destinationToken, amountOut),
      refundCurrency: amountOf(originToken, amountIn),
      totalImpact: { usd: "-0.014500", percent: "-0.06" },
      swapImpact: { usd: "0.000000", percent: "0.00" },
      expandedPriceImpact: { swap: { usd: "0" }, execution: { usd: "-0.012000" }, relay: { usd: "-0.002500" }, app: { usd: "0" }, sponsored: { usd: "0" } },
      rate: "0.9994",
      slippageTolerance: { origin: { usd: "0.000000", value: "0", percent: "0.00" }, destination: { usd: "0.000000", value: "0", percent: "0.00" } },
      timeEstimate: 4,
      userBalance: "0",
      isFixedRate: true,
      route: {
        origin: { inputCurrency: amountOf(originToken, amountIn), outputCurrency: amountOf(originToken, amountIn), router: "relay" },
        destination: { inputCurrency: amountOf(destinationToken, amountOut), outputCurrency: amountOf(destinationToken, amountOut), router: "relay" },
      },
    },
    protocol: {
      v2: {
        orderId: relayRequestId(),
        orderData: {
          version: "v1",
          solverChainId: String(request.originChainId),
          inputs: [
            {
              payment: { chainId: String(request.originChainId), currency: request.originCurrency, amount: amountIn.toString(), weight: "1" },
              refunds: [{ chainId: String(request.originChainId), recipient: request.refundTo, currency: request.originCurrency, minimumAmount: "0", deadline }],
            },
          ],
          output: {
            chainId: String(request.destinationChainId),
            payments: [{ recipient: request.recipient, currency: request.destinationCurrency, minimumAmount: amountOut.toString(), expectedAmount: amountOut.toString() }],
            calls: [],
            deadline,
          },
          fees: [],
        },
        paymentDetails: { chainId: String(request.originChainId), depository: "0x4cd00e387622c35bddb9b4c962c136462338bc31", currency: request.originCurrency, amount: amountIn.toString() },
      },
    },
  };
}

/** A quote error as Relay sends it: `{message, errorCode}` (docs: "Handling Quote Errors"). */
export function relayError(errorCode: string, message: string, status = 400): FakeRelayReply {
  return { status, json: { message, errorCode } };
}

/** A `GET /intents/status/v3` answer (docs: "Get Status"; `updatedAt` in ms). */
export function relayIntentStatus(
  status: string,
  extra: { inTxHashes?: string[]; txHashes?: string[]; updatedAt?: number; originChainId?: number; destinationChainId?: number; details?: string } = {},
) {
  return {
    status,
    inTxHashes: extra.inTxHashes ?? [],
    txHashes: extra.txHashes ?? [],
    updatedAt: extra.updatedAt ?? Date.now(),
    originChainId: extra.originChainId ?? 8453,
    destinationChainId: extra.destinationChainId ?? 42161,
    ...(extra.details === undefined ? {} : { details: extra.details }),
  };
}

type Tx = { txHash: string; chainId: number; status?: "success" | "failure" };

/** One `GET /requests/v3` record (docs: "Migrating to Requests v3", the v3 tab), reduced to what deposit-address tracking reads plus its neighbours. */
export function relayRequestRecord(input: {
  id: string;
  status: string;
  depositAddress: string;
  refundTo?: string;
  inTxs?: Tx[];
  outTxs?: Tx[];
  fills?: { chainId: number; transactionId: string }[];
  refunds?: { chainId: number; transactionId: string }[];
  failReason?: string | null;
  refundFailReason?: string | null;
  updatedAt?: string;
}) {
  const tx = (t: Tx) => ({ txHash: t.txHash, fee: "426860744193", block: 44281091, type: "onchain", chainId: t.chainId, timestamp: 1775351529, status: t.status ?? "success", data: {}, stateChanges: [] });
  return {
    id: input.id,
    status: input.status,
    user: "0x0000000000000000000000000000000000000000",
    sender: null,
    recipient: "0xf3128499092b90f1a520f63c09946dca3dadf98f",
    refundTo: input.refundTo ?? null,
    supersededByRequestId: null,
    depositAddress: { address: input.depositAddress, type: "strict", depositor: null, depositTxHash: input.inTxs?.[0]?.txHash ?? null, recoveryAddress: null },
    requestType: "Bridge",
    data: {
      slippageTolerance: "0",
      failReason: input.failReason ?? null,
      refundFailReason: input.refundFailReason ?? null,
      usesExternalLiquidity: false,
      timeEstimate: 4,
      inTxs: (input.inTxs ?? []).map(tx),
      outTxs: (input.outTxs ?? []).map(tx),
    },
    protocol: {
      orderId: relayRequestId(),
      hubType: "onchain",
      isWithdrawable: false,
      settlement: { destination: { fills: input.fills ?? [], refunds: input.refunds ?? [] } },
    },
    features: ["deposit_address"],
    createdAt: "2026-04-05T01:12:06.153Z",
    updatedAt: input.updatedAt ?? "2026-04-05T01:12:44.199Z",
  };
}

/** Headers Relay would send with a webhook: hex HMAC-SHA256 of `${timestamp}.${body}` keyed by the API key. */
export function signRelayWebhook(apiKey: string, rawBody: string, timestamp: string) {
  return {
    "X-Signature-Timestamp": timestamp,
    "X-Signature-SHA256": createHmac("sha256", apiKey).update(`${timestamp}.${rawBody}`).digest("hex"),
  };
}
