import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { eq } from "drizzle-orm";
import { recoverTypedDataAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { fromProjectRoot } from "../../config/projectRoot.ts";
import { payments } from "../../db/schema/index.ts";
import { paymentIntentTypes, settlementDomain } from "../../rails/evm/settlement/settlementDomain.ts";
import { walletInstructions } from "../../rails/evm/walletInstructions.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { buildRoles } from "../../scripts/build.ts";
import { roleStack } from "../../harness/roleStack.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";

/**
 * The bundle production runs (`npm run build`, `bun dist/role.js <role>`): each file a role
 * reads at run time must still be found from `dist/` — migrations, checkout assets, the
 * signing thread's own bundled entry, the queue dashboard's UI — and the roles must work end to end,
 * the Solana subscriber among them.
 */
// Its own output folder, one level below the project as `dist/` is: never the one an operator runs.
const outdir = fromProjectRoot(`.bundle-test-${process.pid}`);
const OPERATOR_TOKEN = "bundled-roles-operator-token-0123456789";
let roleScript: string;
let stack: Awaited<ReturnType<typeof roleStack>>;
const received: Array<{ type: string; data: { id?: string; payment?: { id: string } } }> = [];
const receiver = Bun.serve({
  port: 0,
  async fetch(request) {
    received.push(await request.json());
    return new Response("ok");
  },
});

beforeAll(async () => {
  roleScript = await buildRoles(outdir);
  stack = await roleStack({ roleScript, env: { OPERATOR_TOKEN, QUEUE_DASHBOARD: "read-only" } });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  receiver.stop(true);
  rmSync(outdir, { recursive: true, force: true });
});

test("bundled roles: the API migrates, signs intents on its thread and serves the checkout page; the worker delivers webhooks", async () => {
  const merchant = await stack.seedMerchant();
  const api = await stack.startRole("api");
  const endpoint = await fetch(`${api.url}/api/v1/webhook-endpoints`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": merchant.apiKey, "x-api-secret": merchant.apiSecret },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hooks`, events: ["payment.created"] }),
  });
  expect(endpoint.status).toBe(201);
  await stack.startRole("worker");

  const created = await fetch(`${api.url}/api/v1/payments/create`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-public-key": merchant.publicKey },
    body: JSON.stringify({ amount: "12.5", currency: "USDC", network: "anvil", orderId: "bundle-1" }),
  });
  expect(created.status).toBe(201);
  const { payment } = (await created.json()) as { payment: { id: string; amount: string } };
  expect(payment.amount).toBe("12.5");

  // The intent was signed by the bundled signing thread, with the intent signer's key (the API holds no operator key).
  const [row] = await stack.db.select().from(payments).where(eq(payments.id, payment.id));
  const intent = walletInstructions(row!)!.intent;
  const signer = await recoverTypedDataAddress({
    domain: settlementDomain(Number(row!.chainId), row!.contractAddress as Address),
    types: paymentIntentTypes,
    primaryType: "PaymentIntent",
    message: { ...intent, amount: BigInt(intent.amount), fee: BigInt(intent.fee), deadline: BigInt(intent.deadline) },
    signature: row!.intentSignature as Hex,
  });
  expect(signer).toBe(privateKeyToAccount(stack.env.INTENT_SIGNER_PRIVATE_KEY as Hex).address);

  // The checkout page and its assets, read from the project's folder.
  const page = await fetch(`${api.url}/pay/${payment.id}`);
  expect(page.status).toBe(200);
  const asset = /\/pay\/assets\/[^"']+\.css/.exec(await page.text())?.[0];
  expect(asset).toBeDefined();
  expect((await fetch(`${api.url}${asset}`)).status).toBe(200);

  // The queue dashboard: bull-board's UI files found from the bundle (the API used to crash on start).
  const operator = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const board = await fetch(`${api.url}/admin/queues`, { headers: operator });
  expect(board.status).toBe(200);
  const boardHtml = await board.text();
  expect(boardHtml).toContain("stablepay queues");
  const script = /src="([^"]*static\/[^"]+\.js)"/.exec(boardHtml)?.[1];
  expect(script).toBeDefined();
  expect((await fetch(new URL(script!, `${api.url}/admin/queues/`), { headers: operator })).status).toBe(200);
  const queues = await fetch(`${api.url}/admin/queues/api/queues?activeQueue=webhooks&page=1`, { headers: operator });
  expect(queues.status).toBe(200);

  // The bundled worker ran the webhook job.
  const deadline = Date.now() + 30_000;
  while (!received.some((e) => e.type === "payment.created") && Date.now() < deadline) await Bun.sleep(100);
  const delivered = received.find((e) => e.type === "payment.created");
  expect(JSON.stringify(delivered?.data)).toContain(payment.id);
}, 120_000);

describe("the bundled Solana subscriber", () => {
  let solana: SolanaTestChain;
  let solanaStack: Awaited<ReturnType<typeof roleStack>>;
  beforeAll(async () => {
    solana = await startSolanaTestChain({ slotMs: 25, finalityDepth: 3 });
    solanaStack = await roleStack({ roleScript, networks: [solana.network], env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_HEAD_INTERVAL_MS: "50" } });
  }, 60_000);
  afterAll(async () => {
    await solanaStack?.close();
    await solana?.stop();
  });

  test("a deposit paid on Solana is credited by the bundled subscriber, completed at finality and swept by the bundled worker", async () => {
    const merchant = await solanaStack.seedMerchant();
    const network = solanaStack.config.networks.find((n) => n.shortName === "solana-local")!;
    await setSettlementWallet(solanaStack.db, merchant.id, network.id, solana.merchant.publicKey.toBase58());
    const api = await solanaStack.startRole("api");
    await Promise.all([solanaStack.startRole("worker"), solanaStack.startRole("solana")]);
    const headers = { "content-type": "application/json", "x-public-key": merchant.publicKey };

    const created = await fetch(`${api.url}/api/v1/deposits/create`, {
      method: "POST",
      headers,
      body: JSON.stringify({ amount: "3", currency: "USDC", network: "solana-local", orderId: "bundle-solana-1" }),
    });
    expect(created.status).toBe(201);
    const { payment } = (await created.json()) as { payment: { id: string; depositAddress: string } };
    await solana.pay({ to: payment.depositAddress, amount: 3_000_000n });

    const deadline = Date.now() + 60_000;
    let status: { status?: string; amountReceived?: string; sweeps?: Array<{ status: string }> } = {};
    while (status.sweeps?.[0]?.status !== "confirmed" && Date.now() < deadline) {
      await Bun.sleep(200);
      status = ((await (await fetch(`${api.url}/api/v1/deposits/status/${payment.id}`, { headers })).json()) as { payment: typeof status }).payment;
    }
    expect(status).toMatchObject({ status: "completed", amountReceived: "3", sweeps: [{ status: "confirmed" }] });
  }, 90_000);
});
