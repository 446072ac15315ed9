import { Connection, SolanaJSONRPCError, type ConfirmedSignatureInfo } from "@solana/web3.js";

/** One `getSignaturesForAddress` of a batch (newest first, down to `until`, exclusive). */
export type SignatureListing = { address: string; until?: string; limit: number; minContextSlot?: number };

/** web3.js's JSON-RPC client (jayson): a request made without a callback is only built, with its id. */
type RpcClient = {
  request(method: string, params: unknown[]): { id: unknown };
  request(batch: ReadonlyArray<{ id: unknown }>, callback: (error: Error | null, answers?: unknown) => void): void;
};

type RpcAnswer = { id?: unknown; result?: unknown; error?: { code: unknown; message: string; data?: unknown } };

const isSignatureList = (value: unknown): value is ConfirmedSignatureInfo[] =>
  Array.isArray(value) && value.every((s) => typeof s?.signature === "string" && typeof s?.slot === "number" && s.err !== undefined);

/**
 * web3.js's `Connection` with the one batch the ingest needs and web3.js lacks: many
 * addresses' signature listings in one JSON-RPC request (web3.js batches only transactions,
 * and matches their answers by position). Sent through web3.js's own client (its fetch,
 * timeout and headers); each answer is matched to its listing by id, as JSON-RPC lets a
 * server answer a batch in any order.
 */
export class BatchingConnection extends Connection {
  /**
   * The listings at `confirmed`, each its signatures (newest first) or, where the node
   * refused that one (its error) or answered something else, an `Error` in its place. A
   * failed request as a whole throws (a failover connection tries the next provider).
   */
  async getSignaturesForAddresses(listings: readonly SignatureListing[]): Promise<Array<ConfirmedSignatureInfo[] | Error>> {
    if (listings.length === 0) return [];
    const client = (this as unknown as { _rpcClient: RpcClient })._rpcClient;
    const requests = listings.map(({ address, until, limit, minContextSlot }) =>
      client.request("getSignaturesForAddress", [address, { commitment: "confirmed", limit, ...(until ? { until } : {}), ...(minContextSlot !== undefined ? { minContextSlot } : {}) }]),
    );
    const answers = await new Promise<unknown>((resolve, reject) => client.request(requests, (error, response) => (error ? reject(error) : resolve(response))));
    if (!Array.isArray(answers)) throw new Error("getSignaturesForAddress batch: the node did not answer with a batch");
    const byId = new Map((answers as RpcAnswer[]).map((answer) => [answer?.id, answer]));
    return requests.map((request) => {
      const answer = byId.get(request.id);
      if (answer?.error) return new SolanaJSONRPCError(answer.error, "failed to get signatures for address");
      return isSignatureList(answer?.result) ? answer.result : new Error("getSignaturesForAddress batch: no list of signatures answered for this address");
    });
  }
}
