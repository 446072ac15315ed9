import { redactMessage, redactUrl } from "./redactUrl.ts";

/**
 * Why a provider is or is not used: `only` (the chain's sole provider, never rotated),
 * `unchecked` (not probed yet) and `ok` are in use; the rest are out of rotation.
 */
export type ProviderReason = "only" | "unchecked" | "ok" | "error" | "wrong_chain" | "stuck" | "lagging";

/** What one probe of a provider read: its chain's identity (EVM chain id, Solana genesis hash) and its head. */
export type ProbeResult = { chainId: string; head: bigint };

export type ProviderState = {
  /** The provider's URL cut to scheme and host: safe to show. */
  provider: string;
  inUse: boolean;
  reason: ProviderReason;
  /** Its head at the last probe that answered. */
  head: bigint | null;
  /** What was wrong, URLs redacted; null while in rotation. */
  detail: string | null;
  /** When it entered its current reason; null for a sole provider. */
  since: Date | null;
};

export type RotationLimits = {
  /** How often every provider is probed. */
  intervalMs: number;
  /** A provider whose head is further than this behind the best one is out (`lagging`). */
  maxLag: bigint;
  /** A provider whose head has not moved for this long while another's is ahead of it is out (`stuck`). */
  stuckMs: number;
};

/** `behindSince`: when another provider first got ahead of its unchanged head. */
type Provider = { url: string; probe: () => Promise<ProbeResult>; state: ProviderState; behindSince: number | null };

/**
 * The providers of one chain and which of them may be used now. A round probes them all
 * together; one that errors, answers for another chain, is behind the best by more than
 * `maxLag` or has not moved its head for `stuckMs` while another is ahead is taken out of
 * rotation until a later round finds it well. Stuck and lagging are only relative: a chain
 * whose every node stands still (a halted chain, an idle devnet) drops none.
 */
export class ProviderRotation {
  private readonly providers: Provider[];
  private timer: ReturnType<typeof setInterval> | null = null;
  private round: Promise<void> | null = null;

  constructor(
    readonly network: { shortName: string; chainId: string },
    providers: { url: string; probe: () => Promise<ProbeResult> }[],
    readonly limits: RotationLimits,
    private readonly now: () => number = Date.now,
  ) {
    const at = new Date(this.now());
    this.providers = providers.map((p) => ({
      ...p,
      behindSince: null,
      state: { provider: redactUrl(p.url), inUse: true, reason: "unchecked", head: null, detail: null, since: at },
    }));
  }

  /**
   * Whether provider `index` takes calls now. When every one is out, all do: a call to a
   * doubtful node beats no call, and the caller's own checks (minContextSlot, confirmations) still apply.
   */
  usable(index: number): boolean {
    if (this.providers[index]?.state.inUse) return true;
    return !this.providers.some((p) => p.state.inUse);
  }

  states(): ProviderState[] {
    return this.providers.map((p) => ({ ...p.state }));
  }

  /** Probes every `intervalMs` (the timer does not keep a process alive), the first round now. */
  start(): this {
    if (this.timer || this.providers.length < 2) return this;
    void this.probeAll();
    this.timer = setInterval(() => void this.probeAll(), this.limits.intervalMs);
    this.timer.unref?.();
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One round; a round still running is joined, not doubled. */
  probeAll(): Promise<void> {
    this.round ??= this.runRound().finally(() => (this.round = null));
    return this.round;
  }

  private async runRound(): Promise<void> {
    const results = await Promise.all(
      this.providers.map((p) =>
        p.probe().then(
          (r) => ({ ok: true as const, ...r }),
          (e: unknown) => ({ ok: false as const, message: e instanceof Error ? e.message : String(e) }),
        ),
      ),
    );
    const now = this.now();
    const onChain = results.flatMap((r) => (r.ok && r.chainId === this.network.chainId ? [r.head] : []));
    const best = onChain.reduce<bigint | null>((max, h) => (max === null || h > max ? h : max), null);
    results.forEach((r, i) => {
      const p = this.providers[i]!;
      if (!r.ok) return this.set(p, "error", redactMessage(r.message.split("\n")[0] ?? ""), now);
      const moved = r.head !== p.state.head;
      p.state.head = r.head;
      if (r.chainId !== this.network.chainId) return this.set(p, "wrong_chain", `answers for chain ${r.chainId}, not ${this.network.chainId}`, now);
      const behind = best === null ? 0n : best - r.head;
      p.behindSince = behind > 0n && !moved ? (p.behindSince ?? now) : behind > 0n ? now : null;
      if (behind > this.limits.maxLag) return this.set(p, "lagging", `${behind} behind the best provider`, now);
      if (p.behindSince !== null && now - p.behindSince >= this.limits.stuckMs) return this.set(p, "stuck", `head ${r.head} unchanged for ${Math.round((now - p.behindSince) / 1000)} s while another is at ${best}`, now);
      this.set(p, "ok", null, now);
    });
  }

  private set(p: Provider, reason: ProviderReason, detail: string | null, now: number): void {
    if (p.state.reason !== reason) p.state.since = new Date(now);
    p.state.reason = reason;
    p.state.inUse = reason === "ok";
    p.state.detail = detail;
  }
}
