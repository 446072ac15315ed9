import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "node:net";
import { SERVER_MAX_BODY_BYTES } from "../../../api/plugins/requestLimits.ts";
import { freePort } from "@stablepay/devchain/freePort";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

// The limits over a real socket, served as api/server.ts serves: a body over 1 MiB is a
// 413 with the error body whether it declares its length or comes chunked; headers over
// 16 KiB are refused by Bun itself (431, no body).
let api: TestApi;
let merchant: TestMerchant;
let port: number;

beforeAll(async () => {
  api = await createTestApi();
  merchant = await api.seedMerchant();
  port = await freePort();
  api.app.listen({ hostname: "127.0.0.1", port, maxRequestBodySize: SERVER_MAX_BODY_BYTES });
}, 60_000);

afterAll(async () => {
  await api?.app.stop();
  await api?.close();
});

/** One raw HTTP/1.1 exchange: status line and body. */
const exchange = (request: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let out = "";
    socket.on("data", (d) => (out += d));
    socket.on("error", reject);
    socket.on("close", () => resolve({ status: Number(out.split(" ")[1]), body: out.split("\r\n\r\n").slice(1).join("\r\n\r\n") }));
  });
const head = (extra: string) => `POST /api/v1/payments/create HTTP/1.1\r\nHost: x\r\nX-Public-Key: ${merchant.publicKey}\r\nContent-Type: application/json\r\nConnection: close\r\n${extra}\r\n`;
const chunk = (d: string) => `${d.length.toString(16)}\r\n${d}\r\n`;
const body = (orderIdLength: number) => JSON.stringify({ amount: "1", currency: "USDC", network: "anvil", orderId: "o".repeat(orderIdLength) });
const tooLarge = { success: false, error: "payload_too_large", message: "Request body is over 1048576 bytes." };

test("a body over 1 MiB with its length: 413 with the error body", async () => {
  const big = body(1_100_000);
  const r = await exchange(`${head(`Content-Length: ${big.length}\r\n`)}${big}`);
  expect(r.status).toBe(413);
  expect(JSON.parse(r.body)).toEqual(tooLarge);
});

test("a chunked body over 1 MiB: 413 with the error body; a chunked body under it reaches the route", async () => {
  const big = body(1_100_000);
  const r = await exchange(`${head("Transfer-Encoding: chunked\r\n")}${chunk(big.slice(0, 600_000))}${chunk(big.slice(600_000))}0\r\n\r\n`);
  expect(r.status).toBe(413);
  expect(JSON.parse(r.body)).toEqual(tooLarge);
  const small = await exchange(`${head("Transfer-Encoding: chunked\r\n")}${chunk(body(500_000))}0\r\n\r\n`);
  expect(small.status).toBe(400);
  expect(JSON.parse(small.body).message).toStartWith("Invalid field 'orderId'");
});

test("headers over 16 KiB: Bun answers 431 before the app; the server keeps answering", async () => {
  const r = await exchange(`GET /api/v1/networks HTTP/1.1\r\nHost: x\r\nX-Pad: ${"h".repeat(17_000)}\r\nConnection: close\r\n\r\n`);
  expect(r.status).toBe(431);
  const after = await fetch(`http://127.0.0.1:${port}/api/v1/networks`, { headers: { "x-public-key": merchant.publicKey } });
  expect(after.status).toBe(200);
});
