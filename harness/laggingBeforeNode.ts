import type { RpcAnswer, RpcCall } from "./rewritingRpcProxy.ts";

/**
 * A node behind the same URL, at slot `laggingAt()` (none while null), answering the pages of
 * `getSignaturesForAddress` that carry `before`: it refuses a read whose `minContextSlot` it
 * has not reached, and otherwise knows no signature newer than its slot (Agave lists nothing
 * before a signature it does not know). Page 1 comes from a node ahead. `refused()` counts refusals.
 */
export function laggingBeforeNode(laggingAt: () => number | null) {
  const slots = new Map<string, number>();
  let refused = 0;
  const rewrite = (call: RpcCall, answer: RpcAnswer): RpcAnswer => {
    const at = laggingAt();
    if (call.method !== "getSignaturesForAddress" || !Array.isArray(answer.result)) return answer;
    const listed = answer.result as Array<{ signature: string; slot: number }>;
    for (const s of listed) slots.set(s.signature, s.slot);
    const { before, minContextSlot } = (call.params?.[1] ?? {}) as { before?: string; minContextSlot?: number };
    if (at === null || before === undefined) return answer;
    if ((minContextSlot ?? 0) > at) {
      refused++;
      return { jsonrpc: "2.0", id: answer.id, error: { code: -32016, message: "Minimum context slot has not been reached", data: { contextSlot: at } } } as never;
    }
    return { ...answer, result: (slots.get(before) ?? Infinity) > at ? [] : listed.filter((s) => s.slot <= at) };
  };
  return { rewrite, refused: () => refused };
}
