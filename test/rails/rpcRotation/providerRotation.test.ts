import { describe, expect, test } from "bun:test";
import { ProviderRotation, type ProbeResult } from "../../../rails/rpcRotation/providerRotation.ts";
import { redactMessage, redactUrl } from "../../../rails/rpcRotation/redactUrl.ts";

/** Providers whose next probe answers what the test sets; a clock the test moves. */
function setup(count: number, limits = { intervalMs: 1_000, maxLag: 10n, stuckMs: 5_000 }) {
  let now = 1_000_000;
  const answers: (ProbeResult | Error)[] = Array.from({ length: count }, () => ({ chainId: "8453", head: 100n }));
  const rotation = new ProviderRotation(
    { shortName: "base", chainId: "8453" },
    answers.map((_, i) => ({
      url: `https://node${i}.example/v2/SECRET${i}`,
      probe: async () => {
        const a = answers[i]!;
        if (a instanceof Error) throw a;
        return a;
      },
    })),
    limits,
    () => now,
  );
  return { rotation, answers, tick: (ms: number) => (now += ms) };
}

describe("provider rotation", () => {
  test("before any probe every provider is usable and unchecked", () => {
    const { rotation } = setup(2);
    expect(rotation.states().map((s) => [s.inUse, s.reason])).toEqual([[true, "unchecked"], [true, "unchecked"]]);
    expect(rotation.usable(0) && rotation.usable(1)).toBe(true);
  });

  test("a provider that errors is out with its reason, URLs redacted, and back when it answers again", async () => {
    const { rotation, answers } = setup(2);
    answers[0] = new Error("fetch failed: https://node0.example/v2/SECRET0 refused");
    await rotation.probeAll();
    const [first, second] = rotation.states();
    expect(first).toMatchObject({ provider: "https://node0.example", inUse: false, reason: "error", detail: "fetch failed: https://node0.example refused" });
    expect(second).toMatchObject({ inUse: true, reason: "ok" });
    expect(rotation.usable(0)).toBe(false);
    expect(JSON.stringify(rotation.states(), (_k, v) => (typeof v === "bigint" ? v.toString() : v))).not.toContain("SECRET");
    answers[0] = { chainId: "8453", head: 100n };
    await rotation.probeAll();
    expect(rotation.usable(0)).toBe(true);
  });

  test("a provider on another chain is out even when its head is the highest", async () => {
    const { rotation, answers } = setup(2);
    answers[1] = { chainId: "1", head: 10_000n };
    await rotation.probeAll();
    expect(rotation.states()[1]).toMatchObject({ inUse: false, reason: "wrong_chain", detail: "answers for chain 1, not 8453" });
    // The wrong chain's head is not the measure of lag for the others.
    expect(rotation.states()[0]).toMatchObject({ inUse: true, reason: "ok" });
  });

  test("a provider behind the best by more than maxLag is lagging; at maxLag it is kept", async () => {
    const { rotation, answers } = setup(3);
    answers[0] = { chainId: "8453", head: 200n };
    answers[1] = { chainId: "8453", head: 190n };
    answers[2] = { chainId: "8453", head: 189n };
    await rotation.probeAll();
    expect(rotation.states().map((s) => s.reason)).toEqual(["ok", "ok", "lagging"]);
  });

  test("a head that stops while another moves on is stuck after stuckMs; all standing still drops none", async () => {
    const { rotation, answers, tick } = setup(2);
    await rotation.probeAll();
    tick(6_000);
    await rotation.probeAll();
    expect(rotation.states().map((s) => s.reason)).toEqual(["ok", "ok"]);
    answers[0] = { chainId: "8453", head: 102n };
    tick(1_000);
    await rotation.probeAll();
    // Node 1 is behind but has only just been overtaken…
    expect(rotation.states().map((s) => s.reason)).toEqual(["ok", "ok"]);
    tick(4_999);
    await rotation.probeAll();
    expect(rotation.states()[1]!.reason).toBe("ok");
    tick(1);
    answers[0] = { chainId: "8453", head: 104n };
    await rotation.probeAll();
    // …and now its head of 100 has stood still for 5 s since node 0 got ahead.
    expect(rotation.states()[1]).toMatchObject({ reason: "stuck", inUse: false });
    answers[1] = { chainId: "8453", head: 104n };
    await rotation.probeAll();
    expect(rotation.states()[1]).toMatchObject({ reason: "ok", inUse: true });
  });

  test("when every provider is out, all are usable: a doubtful node beats none", async () => {
    const { rotation, answers } = setup(2);
    answers[0] = new Error("down");
    answers[1] = new Error("down too");
    await rotation.probeAll();
    expect(rotation.states().every((s) => !s.inUse)).toBe(true);
    expect(rotation.usable(0) && rotation.usable(1)).toBe(true);
  });

  test("`since` is when the provider entered its reason, not the last probe", async () => {
    const { rotation, answers, tick } = setup(2);
    answers[1] = new Error("down");
    await rotation.probeAll();
    const since = rotation.states()[1]!.since!.getTime();
    tick(3_000);
    await rotation.probeAll();
    expect(rotation.states()[1]!.since!.getTime()).toBe(since);
  });
});

describe("redactUrl", () => {
  test("keeps scheme, host and port; drops user, path and query", () => {
    expect(redactUrl("https://user:pw@base-mainnet.g.alchemy.com/v2/KEY?x=1")).toBe("https://base-mainnet.g.alchemy.com");
    expect(redactUrl("http://127.0.0.1:8545")).toBe("http://127.0.0.1:8545");
    expect(redactUrl("not a url")).toBe("[invalid url]");
    expect(redactMessage('HTTP request failed. URL: https://rpc.example/KEY Details: "x"')).toBe('HTTP request failed. URL: https://rpc.example Details: "x"');
  });
});
