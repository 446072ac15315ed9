import { afterAll, beforeAll, expect, test } from "bun:test";
import type { WebhookClient } from "helius-sdk/webhooks/client";
import { createHeliusWebhookSync } from "../../../../rails/solana/ingest/syncHeliusWebhook.ts";

/**
 * The Helius registration of watched addresses, through the real helius-sdk client,
 * against a loopback server answering as Helius's webhook API documents
 * (`/v0/webhooks?api-key=…`: GET lists, POST creates, PUT /{id} updates, PATCH /{id}
 * toggles; every answer a `Webhook`). The SDK's fixed host is pointed at the loopback
 * server by rewriting the URL at `fetch`, as DNS would.
 */
type Webhook = { webhookID: string; wallet: string; webhookURL: string; transactionTypes: string[]; accountAddresses: string[]; webhookType: string; authHeader: string; active: boolean; txnStatus?: string };
const API_KEY = "helius-test-key";
const URL_ = "https://pay.example.com/solana/helius";
const AUTH = "Bearer helius-delivery-secret-0123456789";
const webhooks = new Map<string, Webhook>();
const calls: string[] = [];
let failNext = false;
let server: ReturnType<typeof Bun.serve>;
const realFetch = globalThis.fetch;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      if (url.searchParams.get("api-key") !== API_KEY) return Response.json({ error: "invalid api key" }, { status: 401 });
      calls.push(`${request.method} ${url.pathname}`);
      if (failNext) {
        failNext = false;
        return Response.json({ error: "internal error" }, { status: 500 });
      }
      const id = url.pathname.match(/^\/v0\/webhooks\/([\w-]+)$/)?.[1];
      if (url.pathname === "/v0/webhooks" && request.method === "GET") return Response.json([...webhooks.values()]);
      if (url.pathname === "/v0/webhooks" && request.method === "POST") {
        const body = (await request.json()) as Partial<Webhook>;
        const created = { webhookID: crypto.randomUUID(), wallet: "HeliusAccountWallet111111111111111111111111", active: true, ...body } as Webhook;
        webhooks.set(created.webhookID, created);
        return Response.json(created);
      }
      const current = id ? webhooks.get(id) : undefined;
      if (!current) return Response.json({ error: "webhook not found" }, { status: 404 });
      if (request.method === "PUT" || request.method === "PATCH") {
        const updated = { ...current, ...((await request.json()) as Partial<Webhook>) };
        webhooks.set(current.webhookID, updated);
        return Response.json(updated);
      }
      return new Response("method not allowed", { status: 405 });
    },
  });
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const target = typeof input === "string" || input instanceof URL ? String(input) : input.url;
    return realFetch(target.replace("https://api-mainnet.helius-rpc.com", `http://127.0.0.1:${server.port}`), init);
  }) as typeof fetch;
});

afterAll(() => {
  globalThis.fetch = realFetch;
  server?.stop(true);
});

const sync = (devnet = false, apiKey = API_KEY) => createHeliusWebhookSync({ apiKey, webhookUrl: URL_, authHeader: AUTH, devnet });

test("creates one webhook with the watched addresses; the same set again calls nothing; a new set updates it", async () => {
  const mainnet = sync();
  await mainnet(["Addr2", "Addr1", "Addr1"]);
  expect([...webhooks.values()]).toEqual([
    expect.objectContaining({ webhookURL: URL_, webhookType: "enhanced", transactionTypes: ["ANY"], accountAddresses: ["Addr1", "Addr2"], authHeader: AUTH, txnStatus: "success" }),
  ]);
  expect(calls).toEqual(["GET /v0/webhooks", "POST /v0/webhooks"]);
  const [created] = [...webhooks.keys()];

  calls.length = 0;
  await mainnet(["Addr1", "Addr2"]);
  expect(calls).toEqual([]);
  await mainnet(["Addr3"]);
  expect(calls).toEqual([`PUT /v0/webhooks/${created}`]);
  expect(webhooks.get(created!)!.accountAddresses).toEqual(["Addr3"]);
});

test("a restarted subscriber finds its webhook by URL and type (re-enabling one Helius disabled); devnet keeps its own", async () => {
  const [id] = [...webhooks.keys()];
  webhooks.set(id!, { ...webhooks.get(id!)!, active: false });
  calls.length = 0;
  await sync()(["Addr4"]);
  expect(calls).toEqual(["GET /v0/webhooks", `PATCH /v0/webhooks/${id}`, `PUT /v0/webhooks/${id}`]);
  expect(webhooks.get(id!)).toMatchObject({ active: true, accountAddresses: ["Addr4"] });

  await sync(true)(["DevAddr"]);
  expect(webhooks.size).toBe(2);
  expect([...webhooks.values()].find((w) => w.webhookType === "enhancedDevnet")).toMatchObject({ accountAddresses: ["DevAddr"], webhookURL: URL_ });
  expect(webhooks.get(id!)!.accountAddresses).toEqual(["Addr4"]);
});

test("a refused call throws and leaves the set unregistered, so the next call tries again", async () => {
  await expect(sync(false, "wrong-key")(["Addr5"])).rejects.toThrow("401");
  const mainnet = sync();
  await mainnet(["Addr5"]);
  failNext = true;
  await expect(mainnet(["Addr6"])).rejects.toThrow("500");
  const enhanced = () => [...webhooks.values()].find((w) => w.webhookType === "enhanced")!;
  expect(enhanced().accountAddresses).toEqual(["Addr5"]);
  await mainnet(["Addr6"]);
  expect(enhanced().accountAddresses).toEqual(["Addr6"]);
});

// BUG: the subscriber calls sync about once a second without waiting; two calls at once,
// before the webhook was known, both listed none and both created one: duplicate webhooks.
test("calls at once run one at a time: one webhook is created, and the calls queued behind it send only the newest set", async () => {
  const sent: string[] = [];
  let release!: () => void;
  const slow = new Promise<void>((resolve) => (release = resolve));
  const client = {
    getAll: async () => (sent.push("getAll"), []),
    create: async (params: { accountAddresses: string[] }) => {
      sent.push(`create ${params.accountAddresses}`);
      await slow; // Helius takes its time
      return { webhookID: "created-1", ...params };
    },
    update: async (id: string, params: { accountAddresses: string[] }) => (sent.push(`update ${id} ${params.accountAddresses}`), { webhookID: id, ...params }),
    toggle: async (id: string) => (sent.push(`toggle ${id}`), { webhookID: id }),
  } as unknown as WebhookClient;
  const mainnet = createHeliusWebhookSync({ apiKey: API_KEY, webhookUrl: URL_, authHeader: AUTH, devnet: false, client });
  const first = mainnet(["A"]);
  await Bun.sleep(20); // its create is under way
  const queued = [mainnet(["A", "B"]), mainnet(["A", "B", "C"])];
  await Bun.sleep(20);
  release();
  await Promise.all([first, ...queued]);
  expect(sent).toEqual(["getAll", "create A", "update created-1 A,B,C"]);
  await mainnet(["C", "B", "A"]);
  expect(sent.length).toBe(3);
});

// BUG: the webhook was looked up (and re-enabled) only on the process's first call: one Helius
// disabled later stayed disabled, and one deleted failed every update (404) until a restart.
test("while running: a webhook Helius disabled is re-enabled at the next look; one deleted is created again", async () => {
  webhooks.clear();
  let clock = 0;
  const realNow = Date.now;
  Date.now = () => clock;
  try {
    const mainnet = createHeliusWebhookSync({ apiKey: API_KEY, webhookUrl: URL_, authHeader: AUTH, devnet: false, recheckMs: 60_000 });
    clock = 100_000;
    await mainnet(["Addr7"]);
    const [id] = [...webhooks.keys()];
    webhooks.set(id!, { ...webhooks.get(id!)!, active: false }); // Helius gave up on deliveries
    calls.length = 0;
    clock += 1_000;
    await mainnet(["Addr7"]);
    expect(calls).toEqual([]); // not due yet
    clock += 60_000;
    await mainnet(["Addr7"]);
    expect(calls).toEqual(["GET /v0/webhooks", `PATCH /v0/webhooks/${id}`]);
    expect(webhooks.get(id!)).toMatchObject({ active: true, accountAddresses: ["Addr7"] });

    webhooks.delete(id!); // someone deleted it
    calls.length = 0;
    await expect(mainnet(["Addr8"])).rejects.toThrow("404");
    await mainnet(["Addr8"]);
    expect(calls).toEqual([`PUT /v0/webhooks/${id}`, "GET /v0/webhooks", "POST /v0/webhooks"]);
    expect([...webhooks.values()]).toEqual([expect.objectContaining({ accountAddresses: ["Addr8"], active: true })]);
  } finally {
    Date.now = realNow;
  }
});
