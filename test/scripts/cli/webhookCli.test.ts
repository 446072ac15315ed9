import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import dns from "node:dns/promises";
import { sql } from "drizzle-orm";
import { createLogger } from "../../../config/logger.ts";
import { type Config } from "../../../config/index.ts";
import { createDb, type DbHandle } from "../../../db/client.ts";
import { createMerchant } from "../../../db/merchants.ts";
import { callbackSigningSecret, findWebhookEndpoint, listWebhookEndpoints } from "../../../db/webhookEndpoints.ts";
import { CommandFailedError, commands, UsageError } from "../../../scripts/cli/commands.ts";
import { createTestDatabase, type TestDatabase } from "../../../harness/database.ts";
import { buildConfig } from "../../../plugins/config.ts";

let database: TestDatabase;
let handle: DbHandle;
let config: Config;
let merchantId: string;
const run = (command: string, flags: Record<string, string | boolean> = {}) => commands[command]!({ db: handle.db, config, databaseUrl: database.url, logger: createLogger({ level: "silent" }) }, flags);

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, WEBHOOK_SECRET_OVERLAP_HOURS: "12" });
  merchantId = (await createMerchant(handle.db, { name: "Hooks" })).id;
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

describe("webhook CLI", () => {
  // BUG: every refusal of `webhook add` exited 2 ("you typed it wrong"), also a DNS lookup that
  // failed for now: a script retrying on 1 gave up on what a retry fixes.
  test("add: a live URL whose DNS lookup fails for now is a failure to retry (exit 1), a private one a refusal (exit 2)", async () => {
    const lookup = spyOn(dns, "lookup").mockRejectedValue(Object.assign(new Error("queryA ESERVFAIL hooks.example"), { code: "ESERVFAIL" }));
    try {
      const failed = run("webhook add", { merchant: merchantId, mode: "live", url: "https://hooks.example/in" });
      await expect(failed).rejects.toThrow(CommandFailedError);
      await expect(failed).rejects.toThrow("Could not check --url: hooks.example could not be resolved (ESERVFAIL); retry shortly.");
    } finally {
      lookup.mockRestore();
    }
    await expect(run("webhook add", { merchant: merchantId, mode: "live", url: "https://10.0.0.1/in" })).rejects.toThrow(UsageError);
  });

  test("add, list, rotate, remove", async () => {
    const added = await run("webhook add", { merchant: merchantId, mode: "test", url: "http://127.0.0.1:8080/hooks", events: "payment.completed, payment.expired" });
    const id = /^Webhook endpoint ([0-9a-f-]{36})/.exec(added)![1]!;
    const secret = /Signing secret: (whsec_\S+)/.exec(added)![1]!;
    const stored = (await findWebhookEndpoint(handle.db, config.secrets, id))!;
    expect(stored).toMatchObject({ merchantId, mode: "test", url: "http://127.0.0.1:8080/hooks", events: ["payment.completed", "payment.expired"], secret });

    await run("webhook add", { merchant: merchantId, mode: "live", url: "https://8.8.8.8/all" });
    const list = await run("webhook list", { merchant: merchantId });
    expect(list).toContain(`${id}  test  http://127.0.0.1:8080/hooks  events: payment.completed,payment.expired  enabled`);
    expect(list).toContain("live  https://8.8.8.8/all  events: *  enabled");
    expect(list).not.toContain("whsec_");
    expect((await run("webhook list", { merchant: merchantId, mode: "live" })).split("\n")).toHaveLength(1);

    const rotated = await run("webhook rotate", { id });
    const after = (await findWebhookEndpoint(handle.db, config.secrets, id))!;
    expect(after.previousSecretExpiresAt!.getTime() - Date.now()).toBeGreaterThan(12 * 3_600_000 - 60_000);
    expect(rotated).toContain(`The previous secret also signs until ${after.previousSecretExpiresAt!.toISOString()}.`);
    expect(after.secret).not.toBe(secret);
    expect(after.previousSecret).toBe(secret);
    expect(rotated).toContain(after.secret);
    // BUG: rotating again within the overlap said "also signs for 12 hours" of the oldest secret, which keeps its first deadline.
    const again = await run("webhook rotate", { id });
    expect(again).toContain(`The previous secret also signs until ${after.previousSecretExpiresAt!.toISOString()}.`);
    // BUG: --id with --merchant rotated whatever endpoint the id named, another merchant's too, ignoring --merchant.
    await expect(run("webhook rotate", { id, merchant: merchantId })).rejects.toThrow("--id names one endpoint");
    expect((await findWebhookEndpoint(handle.db, config.secrets, id))!.previousSecretExpiresAt).toEqual(after.previousSecretExpiresAt);

    expect(await run("webhook remove", { id })).toContain(`Removed webhook endpoint ${id}`);
    expect((await listWebhookEndpoints(handle.db, config.secrets, merchantId)).map((e) => e.id)).not.toContain(id);
    await expect(run("webhook remove", { id })).rejects.toThrow(UsageError);
  });

  test("the callbackUrl secret: shown, created once, rotated", async () => {
    const shown = await run("webhook secret", { merchant: merchantId, mode: "test" });
    const secret = /: (whsec_\S+)$/.exec(shown)![1]!;
    expect(await run("webhook secret", { merchant: merchantId, mode: "test" })).toBe(shown);
    const rotated = await run("webhook rotate", { merchant: merchantId, mode: "test" });
    const row = await callbackSigningSecret(handle.db, config.secrets, merchantId, "test");
    expect(row.previousSecret).toBe(secret);
    expect(rotated).toContain(row.secret);
  });

  test("signing secrets are stored sealed with SECRETS_KEY, never as they are", async () => {
    const added = await run("webhook add", { merchant: merchantId, mode: "test", url: "http://127.0.0.1:8080/sealed" });
    const id = /^Webhook endpoint ([0-9a-f-]{36})/.exec(added)![1]!;
    const secret = /Signing secret: (whsec_\S+)/.exec(added)![1]!;
    await run("webhook rotate", { id });
    await run("webhook secret", { merchant: merchantId, mode: "live" });
    const stored = await handle.db.execute<{ secret: string; previous_secret: string | null }>(sql`
      select secret, previous_secret from webhook_endpoints union all select secret, previous_secret from webhook_signing_secrets`);
    const values = [...stored].flatMap((r) => [r.secret, r.previous_secret]).filter((v): v is string => v !== null);
    expect(values.length).toBeGreaterThan(3);
    for (const value of values) {
      expect(value).toStartWith(`enc:v1:${config.secrets.keyId}:`);
      expect(value).not.toContain("whsec_");
    }
    // Another key cannot open them: a clear error, never a wrong secret.
    const otherKey = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") });
    await expect(findWebhookEndpoint(handle.db, otherKey.secrets, id)).rejects.toThrow(/another SECRETS_KEY/);
    expect((await findWebhookEndpoint(handle.db, config.secrets, id))!.previousSecret).toBe(secret);
  });

  test("mistakes are usage errors naming the flag; live mode refuses non-public addresses", async () => {
    const fails = async (flags: Record<string, string>, text: string) => {
      const error = await run("webhook add", { merchant: merchantId, mode: "test", url: "https://example.com", ...flags }).catch((e) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect(error.message).toContain(text);
    };
    await fails({ url: "ftp://example.com" }, "--url");
    await fails({ events: "payment.nope" }, "--events");
    await fails({ mode: "live", url: "http://127.0.0.1:9/x" }, "loopback");
    await fails({ mode: "live", url: "http://192.168.1.1/x" }, "private");
    await fails({ mode: "staging" }, "--mode must be one of");
    await expect(run("webhook rotate", { id: "nope" })).rejects.toThrow("--id must be");
  });
});
