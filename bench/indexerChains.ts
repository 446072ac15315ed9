/**
 * Benchmark (not a test): `bun bench/indexerChains.ts [chains=3] [seconds=30]`.
 * The indexer role runs one Ponder per EVM chain (issue 44): this starts `chains` anvils (a
 * block a second each, a payment's address watched on each), the indexer as the role runs it,
 * and prints each Ponder's resident memory (its process and any children, peak over
 * `seconds` once all are ready) and what each chain beyond the first adds. Goal: ≤ 100 MB.
 */
import { readdirSync, readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setSettlementWallet } from "../db/settlementWallets.ts";
import { merchantWallet, operatorKey, startPaymentChain, startTestIndexer } from "../harness/paymentChain.ts";
import { createTestApi } from "../harness/testApi.ts";

const CHAINS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.argv[3] ?? 30);
const GOAL_MB = 100;

/** Resident set of a process and its descendants, in MB (Linux /proc). */
function rssMb(pid: number): number {
  const own = (p: number) => {
    try {
      const line = readFileSync(`/proc/${p}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
      return line ? Number(line.split(/\s+/)[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  };
  const children = (p: number): number[] => {
    try {
      return readdirSync(`/proc/${p}/task`).flatMap((t) => readFileSync(`/proc/${p}/task/${t}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      return [];
    }
  };
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]!));
  return all.reduce((sum, p) => sum + own(p), 0);
}

const chains = await Promise.all(Array.from({ length: CHAINS }, (_, i) => startPaymentChain({ chainId: 31337 + i, shortName: i === 0 ? "anvil" : `anvil-${i + 1}` })));
const networksFile = join(mkdtempSync(join(tmpdir(), "stablepay-bench-chains-")), "networks.json");
writeFileSync(networksFile, JSON.stringify({ networks: chains.map((c, i) => ({ ...c.network, name: `Anvil ${i + 1}` })) }));
const api = await createTestApi({ env: { NETWORKS_FILE: networksFile, OPERATOR_PRIVATE_KEY: operatorKey, LOG_LEVEL: "silent" } });
const merchant = await api.seedMerchant();
for (const n of api.config.networks.filter((n) => n.type === "evm")) await setSettlementWallet(api.db, merchant.id, n.id, merchantWallet);
// A watched address on each chain: every block's handler asks the node for its transfers.
for (const n of chains.map((c) => c.network.shortName)) {
  const r = await api.request("/api/v1/payments/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "1", currency: "USDC", network: n } });
  if (r.status !== 201) throw new Error(`create on ${n}: ${r.status} ${JSON.stringify(r.body)}`);
}
const started = Date.now();
// BENCH_PONDER_NODE_OPTIONS: Node options for each Ponder (e.g. a smaller heap), to compare.
const extra = process.env.BENCH_PONDER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_PONDER_NODE_OPTIONS } : undefined;
const indexer = await startTestIndexer(api.config, api.databaseUrl, networksFile, extra);
console.log(`${CHAINS} Ponders ready in ${((Date.now() - started) / 1000).toFixed(1)} s (started together from one --root)`);
const mining = setInterval(() => void Promise.all(chains.map((c) => c.mine(1))).catch(() => {}), 1_000);

const peak = new Map<string, number>();
const until = Date.now() + SECONDS * 1000;
while (Date.now() < until) {
  for (const c of indexer.chains) {
    const pid = c.pid();
    if (pid) peak.set(c.chainId, Math.max(peak.get(c.chainId) ?? 0, rssMb(pid)));
  }
  await Bun.sleep(1_000);
}
clearInterval(mining);

const figures = indexer.chains.map((c) => peak.get(c.chainId) ?? 0);
for (const [i, c] of indexer.chains.entries()) console.log(`chain ${c.chainId}: Ponder RSS peak ${figures[i]!.toFixed(0)} MB`);
const total = figures.reduce((a, b) => a + b, 0);
const beyond = CHAINS > 1 ? (total - figures[0]!) / (CHAINS - 1) : 0;
console.log(`total ${total.toFixed(0)} MB for ${CHAINS} chains; per chain beyond the first: ${beyond.toFixed(0)} MB (goal ≤ ${GOAL_MB} MB: ${beyond <= GOAL_MB ? "met" : "NOT met"})`);

await indexer.stop();
await api.close();
await Promise.all(chains.map((c) => c.stop()));
process.exit(0);
