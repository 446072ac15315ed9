import type { RailContext } from "../../types.ts";
import type { BridgeAdapter } from "../adapter.ts";
import { updateRequest } from "./books.ts";
import { quoteLocal } from "./quoteLocal.ts";
import { readLocalStatus } from "./readLocalStatus.ts";

/**
 * The `local` bridge adapter: the sandbox's own bridge between local chains, run by its
 * relayer (`relayer/`) from the books in Postgres. A quote is a row in those books; status
 * is read from them. Refunds go to the sender of each deposit (the quote's `refundTo` is
 * not used): `refund` makes the relayer return every deposit instead of filling it.
 */
export function createLocalAdapter(ctx: RailContext): BridgeAdapter {
  return {
    name: "local",
    refundsOnRequest: true,
    quote: (request) => quoteLocal(ctx, request),
    status: (request) => readLocalStatus(ctx.db, request.requestId),
    refund: async (request) => {
      await updateRequest(ctx.db, request.requestId, { refundRequested: true });
      return readLocalStatus(ctx.db, request.requestId);
    },
  };
}
