import { buildConfig, redactConfig } from "../../plugins/config.ts";
import { describe, expect, test } from "bun:test";
import { getBase58Codec } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import { privateKeyToAccount } from "viem/accounts";
import { ConfigError, type Role } from "../../config/index.ts";
import { envForRole, foreignSecrets, publicAddresses, ROLES, SECRET_READERS } from "../../plugins/roles.ts";
import { roleEnv } from "../../scripts/lib/roleEnv.ts";
import { sandboxEnv } from "../../scripts/lib/sandboxEnv.ts";
import { sandboxChainEnv } from "../../scripts/lib/sandboxChains.ts";
import { sandboxAccounts } from "../../rails/evm/sandbox.ts";
import { sandboxDepositSeed } from "../../rails/solana/sandbox.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";

const OPERATOR_KEY = `0x${"11".repeat(32)}` as const;
const SIGNER_KEY = `0x${"22".repeat(32)}` as const;
const RELAYER_KEY = `0x${"33".repeat(32)}` as const;
const solanaOperator = Keypair.fromSeed(new Uint8Array(32).fill(4));
const SEED = "ab".repeat(32);
/** One environment carrying every role's secrets, as a shared one in production may. */
const everything = {
  APP_ENV: "test",
  OPERATOR_PRIVATE_KEY: OPERATOR_KEY,
  INTENT_SIGNER_PRIVATE_KEY: SIGNER_KEY,
  SOLANA_OPERATOR_SECRET_KEY: getBase58Codec().decode(solanaOperator.secretKey),
  SOLANA_DEPOSIT_SEED: SEED,
  BRIDGE_LOCAL_RELAYER_KEY: RELAYER_KEY,
  BRIDGE_ADAPTER: "local",
};
const build = (env: Record<string, string>, role?: Role) => buildConfig(env, { role, extraNetworks: [anvilNetwork("http://127.0.0.1:1", { chainId: "31337" })] });
const secretsOf = (config: ReturnType<typeof build>) => ({
  operator: config.operatorPrivateKey,
  signer: config.intentSignerPrivateKey,
  solanaOperator: config.solana.operatorSecretKey !== null,
  seed: config.solana.depositSeed !== null,
  relayer: config.bridge.local?.relayerPrivateKey ?? null,
});

describe("each role's configuration holds only its own secrets", () => {
  test("the API: the intent signer only; never the operator's key, the Solana operator's or the deposit seed, even when its environment has them", () => {
    const api = build(everything, "api");
    expect(secretsOf(api)).toEqual({ operator: null, signer: SIGNER_KEY, solanaOperator: false, seed: false, relayer: null });
    expect(api.role).toBe("api");
    // The local bridge still quotes (the relayer's address comes from its books).
    expect(api.bridge.local).toMatchObject({ relayerPrivateKey: null, feeBps: 10 });
    // And nothing of them anywhere in it.
    const text = JSON.stringify(api, (_k, v) => (typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v));
    for (const secret of [OPERATOR_KEY.slice(2), SEED, RELAYER_KEY.slice(2), Buffer.from(solanaOperator.secretKey).toString("hex")]) expect(text).not.toContain(secret);
  });

  test("the worker: the operators' keys and the seed; not the intent signer, not the relayer's", () => {
    expect(secretsOf(build(everything, "worker"))).toEqual({ operator: OPERATOR_KEY, signer: null, solanaOperator: true, seed: true, relayer: null });
  });

  test("the relayer: its key alone; the indexer and the Solana subscriber: none", () => {
    expect(secretsOf(build(everything, "relayer"))).toEqual({ operator: null, signer: null, solanaOperator: false, seed: false, relayer: RELAYER_KEY });
    for (const role of ["indexer", "solana"] as const) {
      expect(secretsOf(build(everything, role))).toEqual({ operator: null, signer: null, solanaOperator: false, seed: false, relayer: null });
    }
  });

  test("no role (tests, the CLI, `npm start`'s supervisor): every secret, as before", () => {
    expect(secretsOf(build(everything))).toEqual({ operator: OPERATOR_KEY, signer: SIGNER_KEY, solanaOperator: true, seed: true, relayer: RELAYER_KEY });
  });

  test("the role can come from STABLEPAY_ROLE (what `scripts/role.ts` leaves for Ponder and other children)", () => {
    expect(secretsOf(build({ ...everything, STABLEPAY_ROLE: "api" }))).toEqual(secretsOf(build(everything, "api")));
    expect(build({ ...everything, STABLEPAY_ROLE: "indexer" }).role).toBe("indexer");
  });

  test("every secret has exactly one role that reads it, and every other role is told to ignore it", () => {
    for (const [name, reader] of Object.entries(SECRET_READERS)) {
      expect(ROLES).toContain(reader);
      for (const role of ROLES) expect(foreignSecrets({ [name]: "x" }, role)).toEqual(role === reader ? [] : [name]);
    }
    expect(foreignSecrets({ OPERATOR_PRIVATE_KEY: " " }, "api")).toEqual([]); // blank is unset
    expect(foreignSecrets(everything, undefined)).toEqual([]);
  });

  test("a role's environment: the foreign secrets removed, the role named", () => {
    const env = envForRole({ ...everything, PORT: "3000" }, "api");
    expect(env).toMatchObject({ INTENT_SIGNER_PRIVATE_KEY: SIGNER_KEY, PORT: "3000", STABLEPAY_ROLE: "api" });
    for (const name of ["OPERATOR_PRIVATE_KEY", "SOLANA_OPERATOR_SECRET_KEY", "SOLANA_DEPOSIT_SEED", "BRIDGE_LOCAL_RELAYER_KEY"]) expect(env).not.toHaveProperty(name);
  });

  test("redacted for logs: no secret of any role", () => {
    const redacted = JSON.stringify(redactConfig(build(everything)), (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    for (const secret of [OPERATOR_KEY.slice(2), SIGNER_KEY.slice(2), SEED, RELAYER_KEY.slice(2)]) expect(redacted).not.toContain(secret);
  });
});

describe("the operators' addresses", () => {
  const evm = privateKeyToAccount(OPERATOR_KEY).address;
  const solana = solanaOperator.publicKey.toBase58();

  test("derived from the keys where they are held; given as OPERATOR_ADDRESS / SOLANA_OPERATOR_ADDRESS where they are not", () => {
    const worker = build(everything, "worker");
    expect([worker.operatorAddress, worker.solana.operatorAddress]).toEqual([evm, solana]);
    const bare = build(everything, "api");
    expect([bare.operatorAddress, bare.solana.operatorAddress]).toEqual([null, null]);
    const api = build({ ...everything, OPERATOR_ADDRESS: evm.toLowerCase(), SOLANA_OPERATOR_ADDRESS: solana }, "api");
    expect([api.operatorAddress, api.solana.operatorAddress]).toEqual([evm, solana]);
  });

  test("a key and an address that disagree are refused at start, naming the variable", () => {
    const other = privateKeyToAccount(SIGNER_KEY).address;
    expect(() => build({ ...everything, OPERATOR_ADDRESS: other }, "worker")).toThrow(ConfigError);
    expect(() => build({ ...everything, OPERATOR_ADDRESS: other }, "worker")).toThrow(/OPERATOR_ADDRESS: .* is not the address of OPERATOR_PRIVATE_KEY/);
    expect(() => build({ ...everything, SOLANA_OPERATOR_ADDRESS: Keypair.generate().publicKey.toBase58() }, "worker")).toThrow(/SOLANA_OPERATOR_ADDRESS: .* is not the address/);
    // The API does not hold the key: there is nothing to disagree with.
    expect(build({ ...everything, OPERATOR_ADDRESS: other }, "api").operatorAddress).toBe(other);
    expect(() => build({ APP_ENV: "test", SOLANA_OPERATOR_ADDRESS: "not-base58!" }, "api")).toThrow(/SOLANA_OPERATOR_ADDRESS: must be a Solana address/);
  });

  test("`npm start` gives each role its own secrets and every role the operators' addresses", () => {
    // What the supervisor, holding every key, hands each role: both operators' addresses (`evm`, `solana`).
    const operators = publicAddresses(build(everything, "worker"));
    const api = roleEnv(everything, "api", operators);
    expect(api).toMatchObject({ OPERATOR_ADDRESS: evm, SOLANA_OPERATOR_ADDRESS: solana, INTENT_SIGNER_PRIVATE_KEY: SIGNER_KEY });
    expect(api).not.toHaveProperty("OPERATOR_PRIVATE_KEY");
    expect(secretsOf(build(api as Record<string, string>))).toEqual({ operator: null, signer: SIGNER_KEY, solanaOperator: false, seed: false, relayer: null });
    // An address the operator set is kept.
    expect(roleEnv({ ...everything, OPERATOR_ADDRESS: "0x0000000000000000000000000000000000000001" }, "api", operators).OPERATOR_ADDRESS).toBe("0x0000000000000000000000000000000000000001");
  });

  test("the sandbox's keys: an intent signer apart from the operator, and a deposit seed", async () => {
    const made = { DATABASE_URL: "postgres://sandbox", REDIS_URL: "redis://sandbox", NETWORKS_FILE: "/sandbox/networks.json", SOLANA_OPERATOR_SECRET_KEY: "made" };
    const env = sandboxEnv({}, made, await sandboxChainEnv());
    expect(env).toMatchObject({ INTENT_SIGNER_PRIVATE_KEY: sandboxAccounts.intentSigner, SOLANA_DEPOSIT_SEED: sandboxDepositSeed });
    expect(sandboxAccounts.intentSigner).not.toBe(sandboxAccounts.operator);
  });
});

describe("the new variables are checked at start", () => {
  test.each([
    ["SOLANA_DEPOSIT_SEED too short", { SOLANA_DEPOSIT_SEED: "ab".repeat(16) }, "SOLANA_DEPOSIT_SEED"],
    ["SOLANA_DEPOSIT_SEED not hex", { SOLANA_DEPOSIT_SEED: "zz".repeat(32) }, "SOLANA_DEPOSIT_SEED"],
    ["INTENT_SIGNER_PRIVATE_KEY of zeros", { INTENT_SIGNER_PRIVATE_KEY: `0x${"0".repeat(64)}` }, "INTENT_SIGNER_PRIVATE_KEY"],
    ["OPERATOR_ADDRESS not an address", { OPERATOR_ADDRESS: "0x1234" }, "OPERATOR_ADDRESS"],
    ["a low-water mark above the pool", { SOLANA_DEPOSIT_POOL_SIZE: "10", SOLANA_DEPOSIT_POOL_REFILL_BELOW: "11" }, "SOLANA_DEPOSIT_POOL_REFILL_BELOW"],
  ])("%s", (_name, env, variable) => {
    expect(() => buildConfig({ APP_ENV: "test", ...env })).toThrow(new RegExp(`^${variable}`));
  });

  test("a seed as 32 to 64 bytes of hex, 0x or not; the pool's size and mark", () => {
    const config = buildConfig({ APP_ENV: "test", SOLANA_DEPOSIT_SEED: `0x${"cd".repeat(64)}`, SOLANA_DEPOSIT_POOL_SIZE: "50", SOLANA_DEPOSIT_POOL_REFILL_BELOW: "5" });
    expect(config.solana.depositSeed).toEqual(new Uint8Array(64).fill(0xcd));
    expect(config.solana.depositPool).toEqual({ size: 50, refillBelow: 5 });
    expect(buildConfig({ APP_ENV: "test" }).solana.depositPool).toEqual({ size: 500, refillBelow: 100 });
  });
});
