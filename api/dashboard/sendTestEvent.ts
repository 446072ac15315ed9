import type { Config } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { recordAccountEvent } from "../../db/accountEvents.ts";
import { recentAuditCount, recordAudit } from "../../db/dashboardAudit.ts";
import type { WebhookEndpointRow } from "../../db/webhookEndpoints.ts";
import { ConflictError, RateLimitedError } from "../../domain/errors.ts";
import type { DashboardContext } from "./guard.ts";

const HOUR_SECONDS = 3_600;
const ACTION = "webhook_endpoint.test_sent";

/**
 * A `test.ping` event to one endpoint of the mode shown, whatever its filter: written to the
 * outbox like any event, so it is signed, delivered, retried and logged by the normal path.
 * At most WEBHOOK_REDELIVERIES_PER_HOUR an hour per account (counted in the audit log), so a
 * team member cannot have the service hammer a URL. Returns the event's id.
 */
export async function sendTestEvent(deps: { db: Db; config: Config }, dash: DashboardContext, endpoint: WebhookEndpointRow): Promise<string> {
  const { db, config } = deps;
  if (endpoint.disabledAt) throw new ConflictError(`The endpoint ${endpoint.url} is disabled (${endpoint.disabledReason ?? "it answered 410"}): nothing is sent to it.`);
  const limit = config.webhooks.redeliveriesPerHour;
  if ((await recentAuditCount(db, dash.merchantId, ACTION, HOUR_SECONDS)) >= limit) {
    throw new RateLimitedError(`At most ${limit} test events an hour may be sent: try again later.`, HOUR_SECONDS);
  }
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const data = { message: "A test event sent from the dashboard: your endpoint receives and can verify webhooks.", endpointId: endpoint.id, by: { email: dash.user.email } };
    const { event } = await recordAccountEvent(tx, { merchantId: dash.merchantId, mode: dash.mode, type: "test.ping", data }, { endpointId: endpoint.id });
    await recordAudit(tx, { merchantId: dash.merchantId, userId: dash.user.id, action: ACTION, details: { mode: dash.mode, endpointId: endpoint.id, url: endpoint.url, eventId: event.id }, ip: dash.ip, userAgent: dash.userAgent });
    return event.id;
  });
}
