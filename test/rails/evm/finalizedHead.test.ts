import { afterAll, expect, test } from "bun:test";

import { finalizedHead } from "../../../rails/evm/chainHead.ts";
import { anvilNetwork } from "../../../harness/fixtures.ts";
import { buildConfig } from "../../../plugins/config.ts";

/**
 * The EVM rail's final block against a loopback node whose answer to
 * `eth_getBlockByNumber("finalized")` the test picks: only the node saying it has no such
 * tag gives the stand-in (twice the required confirmations below the head); a failure is a failure.
 */
let answer: "no-tag" | "http-429" | "rate-limited" | "hang" = "no-tag";
const node = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const call = (await request.json()) as { id: number; method: string };
    if (call.method === "eth_blockNumber") return Response.json({ jsonrpc: "2.0", id: call.id, result: "0x64" });
    if (answer === "http-429") return new Response("Too Many Requests", { status: 429 });
    if (answer === "rate-limited") return Response.json({ jsonrpc: "2.0", id: call.id, error: { code: -32005, message: "rate limit exceeded" } });
    if (answer === "hang") await Bun.sleep(2_000);
    return Response.json({ jsonrpc: "2.0", id: call.id, error: { code: -32602, message: "invalid block tag" } });
  },
});
afterAll(() => node.stop(true));

const network = buildConfig({ APP_ENV: "test" }, { extraNetworks: [anvilNetwork(`http://127.0.0.1:${node.port}`, { requiredConfirmations: 3 })] }).networks.find((n) => n.shortName === "anvil")!;

// BUG: any failure whose text matched "finalized|invalid|…" read as "no such tag" — and viem's
// message names the request (`"finalized"`), so a 429 or a timeout gave the stand-in, 6 blocks
// below the head: on an L2, blocks far from final were swept, refunded and replayed from.
test("only the node's own 'no such tag' gives the stand-in; a 429, a rate-limit error or a timeout fails", async () => {
  answer = "no-tag";
  expect(await finalizedHead(network, 1_000)).toBe(94n);
  for (const failure of ["http-429", "rate-limited", "hang"] as const) {
    answer = failure;
    expect([failure, await finalizedHead(network, 1_000).then(String, () => "failed")]).toEqual([failure, "failed"]);
  }
});
