import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { generateWebhookSecret, signWebhook, verifyWebhook, WebhookVerificationError } from "../../domain/webhookSignature.ts";

// The Standard Webhooks spec's published vector (libraries/javascript/src/webhook.test.ts, "sign function works").
const vector = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  msgId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const at = (seconds: number) => new Date(seconds * 1000);
const vectorHeaders = () => ({ "webhook-id": vector.msgId, "webhook-timestamp": String(vector.timestamp), "webhook-signature": vector.signature });

describe("signing", () => {
  test("matches the spec's test vector", () => {
    expect(signWebhook({ msgId: vector.msgId, timestamp: at(vector.timestamp), body: vector.payload, secrets: [vector.secret] })).toEqual(vectorHeaders());
  });

  test("the secret works with or without its whsec_ prefix", () => {
    const bare = vector.secret.slice("whsec_".length);
    expect(signWebhook({ msgId: vector.msgId, timestamp: at(vector.timestamp), body: vector.payload, secrets: [bare] })["webhook-signature"]).toBe(vector.signature);
  });

  test("during a rotation both secrets sign, space-separated, current first", () => {
    const next = generateWebhookSecret();
    const headers = signWebhook({ msgId: vector.msgId, timestamp: at(vector.timestamp), body: vector.payload, secrets: [next, vector.secret] });
    const [first, second] = headers["webhook-signature"].split(" ");
    expect(first).toBe(new Webhook(next).sign(vector.msgId, at(vector.timestamp), vector.payload));
    expect(second).toBe(vector.signature);
    // A receiver holding either secret accepts the message.
    for (const secret of [next, vector.secret]) {
      expect(verifyWebhook(vector.payload, headers, secret, { now: at(vector.timestamp) })).toEqual({ test: 2432232314 });
    }
  });

  test("generated secrets are whsec_ + base64 of 32 bytes, accepted by the library", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
    const headers = signWebhook({ msgId: "evt", timestamp: new Date(), body: "{}", secrets: [secret] });
    expect(new Webhook(secret).verify("{}", headers)).toEqual({});
  });

  test("refuses to sign without a secret", () => {
    expect(() => signWebhook({ msgId: "m", timestamp: new Date(), body: "{}", secrets: [] })).toThrow();
  });
});

describe("verifyWebhook", () => {
  const now = at(vector.timestamp);

  test("accepts the spec's vector and returns the parsed body", () => {
    expect(verifyWebhook(vector.payload, vectorHeaders(), vector.secret, { now })).toEqual({ test: 2432232314 });
    // Headers objects, Buffers and any header case work too.
    const headers = new Headers(vectorHeaders());
    expect(verifyWebhook(Buffer.from(vector.payload), headers, vector.secret, { now })).toEqual({ test: 2432232314 });
    const upper = { "Webhook-Id": vector.msgId, "Webhook-Timestamp": String(vector.timestamp), "Webhook-Signature": vector.signature };
    expect(verifyWebhook(vector.payload, upper, vector.secret, { now })).toEqual({ test: 2432232314 });
  });

  test("agrees with the library's own verify on a fresh message", () => {
    const body = JSON.stringify({ id: "evt_1", type: "payment.completed" });
    const headers = signWebhook({ msgId: "evt_1", timestamp: new Date(), body, secrets: [vector.secret] });
    expect(new Webhook(vector.secret).verify(body, headers)).toEqual(verifyWebhook(body, headers, vector.secret));
  });

  test("a multi-signature header passes when any v1 signature matches (other versions ignored)", () => {
    const headers = {
      ...vectorHeaders(),
      "webhook-signature": [
        "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
        "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
        vector.signature,
      ].join(" "),
    };
    expect(verifyWebhook(vector.payload, headers, vector.secret, { now })).toEqual({ test: 2432232314 });
  });

  const rejects = (payload: string, headers: Record<string, string>, secret = vector.secret, options: { toleranceSeconds?: number; now?: Date } = { now }) => {
    expect(() => verifyWebhook(payload, headers, secret, options)).toThrow(WebhookVerificationError);
  };

  test("a tampered body is rejected", () => {
    rejects('{"test": 2432232315}', vectorHeaders());
    rejects(`${vector.payload} `, vectorHeaders());
  });

  test("a tampered timestamp is rejected (it is signed)", () => {
    rejects(vector.payload, { ...vectorHeaders(), "webhook-timestamp": String(vector.timestamp + 1) });
  });

  test("a tampered id, a wrong secret, a partial or empty signature are rejected", () => {
    rejects(vector.payload, { ...vectorHeaders(), "webhook-id": "msg_other" });
    rejects(vector.payload, vectorHeaders(), generateWebhookSecret());
    rejects(vector.payload, { ...vectorHeaders(), "webhook-signature": vector.signature.slice(0, 8) });
    rejects(vector.payload, { ...vectorHeaders(), "webhook-signature": "v1," });
    rejects(vector.payload, { ...vectorHeaders(), "webhook-signature": vector.signature.replace("v1,", "v2,") });
  });

  test("missing or malformed headers are rejected", () => {
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
      const headers: Record<string, string> = vectorHeaders();
      delete headers[name];
      rejects(vector.payload, headers);
    }
    rejects(vector.payload, { ...vectorHeaders(), "webhook-timestamp": "hello" });
  });

  test("timestamps outside the tolerance are rejected, either way (default 5 minutes)", () => {
    rejects(vector.payload, vectorHeaders(), vector.secret, { now: at(vector.timestamp + 301) });
    rejects(vector.payload, vectorHeaders(), vector.secret, { now: at(vector.timestamp - 301) });
    expect(verifyWebhook(vector.payload, vectorHeaders(), vector.secret, { now: at(vector.timestamp + 300) })).toEqual({ test: 2432232314 });
    expect(verifyWebhook(vector.payload, vectorHeaders(), vector.secret, { now: at(vector.timestamp - 300) })).toEqual({ test: 2432232314 });
    // A chosen tolerance.
    rejects(vector.payload, vectorHeaders(), vector.secret, { now: at(vector.timestamp + 31), toleranceSeconds: 30 });
    expect(verifyWebhook(vector.payload, vectorHeaders(), vector.secret, { now: at(vector.timestamp + 3600), toleranceSeconds: 7200 })).toEqual({ test: 2432232314 });
    // Without `now`, the real clock: the 2021 vector is far too old.
    rejects(vector.payload, vectorHeaders(), vector.secret, {});
  });
});
