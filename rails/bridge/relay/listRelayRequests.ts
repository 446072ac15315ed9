import { BridgeUnavailableError } from "../../../domain/errors.ts";
import { isRecord, stringField } from "./readJson.ts";
import { refusedRead } from "./refusedRead.ts";
import { requestRelay } from "./requestRelay.ts";
import type { RelayAdapterOptions } from "./types.ts";

/** `/requests/v3` pages at most 50 (docs.relay.link, "Migrating to Requests v3"). */
const PAGE_SIZE = 50;
/** A strict deposit address holds one order; a few pages is already far more than it can have. */
const MAX_PAGES = 5;

/**
 * Every request Relay holds for a deposit address: `GET /requests/v3?depositAddress=`
 * (needs the API key; v2 retires 2026-11-24), following `continuation` page by page.
 * The records come back as Relay sent them (`requests[]`); readers pick the fields.
 */
export async function listRelayRequests(options: RelayAdapterOptions, depositAddress: string): Promise<Record<string, unknown>[]> {
  const requests: Record<string, unknown>[] = [];
  let continuation: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await requestRelay(options, {
      method: "GET",
      path: "/requests/v3",
      query: { depositAddress, limit: PAGE_SIZE, sortBy: "createdAt", sortDirection: "asc", continuation },
    });
    const body = isRecord(answer.body) ? answer.body : undefined;
    if (answer.status < 200 || answer.status >= 300 || !body || !Array.isArray(body.requests)) {
      const reason = stringField(body?.message);
      throw new BridgeUnavailableError("relay", `GET /requests/v3 answered ${answer.status}${reason ? `: ${reason}` : " without requests[]"}`, {
        httpStatus: answer.status,
        bridgeCode: stringField(body?.errorCode),
        retryable: !refusedRead(answer.status),
      });
    }
    requests.push(...body.requests.filter(isRecord));
    continuation = stringField(body.continuation);
    if (!continuation || body.requests.length === 0) break;
  }
  return requests;
}
