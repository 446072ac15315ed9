import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, PublicKey } from "@solana/web3.js";
import { sql } from "drizzle-orm";
import { erc20Abi, getAddress, type Address } from "viem";
import { createLogger } from "../../../config/logger.ts";
import { projectRoot } from "../../../config/projectRoot.ts";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { depositKeypair, poolKeypair } from "../../../rails/solana/depositKeys.ts";
import { commands, CommandFailedError, UsageError } from "../../../scripts/cli/commands.ts";
import { parseDeposits } from "../../../scripts/cli/recover.ts";
import { insertPaymentRows, paymentRowFactory } from "../../../harness/paymentRows.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, type PaymentChain } from "../../../harness/paymentChain.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

/**
 * `npm run cli -- recover`: what deposit addresses hold is swept with the worker's secrets and
 * the chain, even once the database is lost. Solana: the deposit seed's indexes are read up to
 * a gap and every balance goes to the destination the operator names (with the database: to
 * the payment's merchant; a payment from before the pool: by the legacy seed). EVM: the
 * forwarders the merchant's records name (payment id, wallet) are swept to their wallet.
 * Nothing here runs the worker: the service never swept these.
 */
let chain: PaymentChain;
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
const SEED = randomBytes(32).toString("hex");
const dir = mkdtempSync(join(tmpdir(), "stablepay-recover-"));
const networksFile = join(dir, "networks.json");
const logger = createLogger({ level: "silent" });

/**
 * The CLI as an operator runs it after losing the database: no DATABASE_URL, only the secrets
 * and the chains. Not awaited synchronously: the Solana test chain answers from this process.
 */
async function cliWithoutDatabase(args: string[], env: Record<string, string>) {
  const child = Bun.spawn([process.execPath, join(projectRoot, "scripts/cli.ts"), "recover", ...args], {
    cwd: projectRoot,
    // A data folder of its own: no sandbox's dev-stack.json offers a database.
    env: { PATH: process.env.PATH, APP_ENV: "test", NETWORKS_FILE: networksFile, DATA_DIR: dir, LOG_LEVEL: "silent", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, status] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, status };
}
const recoverWithDatabase = (flags: Record<string, string | boolean>) => commands.recover!({ db: api.db, config: api.config, databaseUrl: api.databaseUrl, logger }, flags);

const solanaBalance = async (owner: PublicKey | string, mint = solana.usdc) =>
  getAccount(solana.connection, getAssociatedTokenAddressSync(mint.address, new PublicKey(owner), true, mint.programId), "confirmed", mint.programId).then(
    (a) => a.amount,
    () => 0n,
  );
const evmBalance = (symbol: string, holder: Address) =>
  chain.publicClient.readContract({ address: chain.tokens.find((t) => t.symbol === symbol)!.address, abi: erc20Abi, functionName: "balanceOf", args: [holder] });
const headers = () => ({ "x-public-key": merchant.publicKey });
const createDeposit = async (network: string, amount = "1") => {
  const response = await api.request("/api/v1/deposits/create", { headers: headers(), body: { amount, currency: "USDC", network, orderId: randomUUID() } });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; depositAddress: string };
};

beforeAll(async () => {
  [chain, solana] = await Promise.all([startPaymentChain(), startSolanaTestChain({ slotMs: 25, finalityDepth: 2 })]);
  writeFileSync(networksFile, JSON.stringify({ networks: [chain.network, solana.network] }));
  api = await createTestApi({
    env: {
      NETWORKS_FILE: networksFile,
      OPERATOR_PRIVATE_KEY: operatorKey,
      SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey,
      SOLANA_DEPOSIT_SEED: SEED,
      SOLANA_DEPOSIT_POOL_SIZE: "12",
      SOLANA_DEPOSIT_POOL_REFILL_BELOW: "3",
    },
  });
  merchant = await api.seedMerchant();
  const network = (shortName: string) => api.config.networks.find((n) => n.shortName === shortName)!;
  await setSettlementWallet(api.db, merchant.id, network("anvil").id, merchantWallet);
  await setSettlementWallet(api.db, merchant.id, network("solana-local").id, solana.merchant.publicKey.toBase58());
}, 90_000);

afterAll(async () => {
  await api?.close();
  await Promise.all([chain?.stop(), solana?.stop()]);
});

describe("recover on Solana", () => {
  test("the database lost: the seed's indexes are read past an unpaid address, each balance (Token-2022 with a fee too) goes to the named destination; a second run finds nothing", async () => {
    const [paid, unpaid, alsoPaid] = [await createDeposit("solana-local"), await createDeposit("solana-local"), await createDeposit("solana-local")];
    await solana.pay({ to: paid.depositAddress, amount: 2_000_000n });
    await solana.pay({ to: paid.depositAddress, amount: 5_000_000n, mint: solana.feeToken });
    await solana.pay({ to: alsoPaid.depositAddress, amount: 3_000_000n });
    expect(unpaid.depositAddress).toBe(poolKeypair(Uint8Array.from(Buffer.from(SEED, "hex")), 1).publicKey.toBase58());

    const rescue = Keypair.generate().publicKey.toBase58();
    const env = { SOLANA_DEPOSIT_SEED: SEED, SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey };
    // A gap of 3: index 1 (never paid) does not end the reading; 3, 4 and 5 do.
    const run = await cliWithoutDatabase(["--network", "solana-local", "--destination", rescue, "--gap", "3"], env);
    expect({ status: run.status, stderr: run.stderr.trim() }).toEqual({ status: 0, stderr: "No database: recovering from the secrets and the chain alone." });
    expect(run.stdout).toContain(`${paid.depositAddress}  2 USDC  -> ${rescue}  tx `);
    expect(run.stdout).toContain(`${alsoPaid.depositAddress}  3 USDC  -> ${rescue}  tx `);
    expect(run.stdout).toContain("Solana Test: 3 balance(s) recovered.");
    expect(await solanaBalance(rescue)).toBe(5_000_000n);
    // The fee mint withholds its 1% at each transfer in: 4.95 reached the deposit, 4.9005 the rescue wallet.
    expect(await solanaBalance(rescue, solana.feeToken)).toBe(4_900_500n);
    for (const address of [paid.depositAddress, alsoPaid.depositAddress]) {
      expect(await solana.connection.getAccountInfo(getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(address), true), "confirmed")).toBeNull();
    }
    const again = await cliWithoutDatabase(["--network", "solana-local", "--destination", rescue, "--gap", "3"], env);
    expect(again.status).toBe(0);
    expect(again.stdout.trim()).toBe("Solana Test: 0 balance(s) recovered.");
  }, 60_000);

  test("without a destination and without the database, a balance is reported and left where it is (exit 1)", async () => {
    const deposit = await createDeposit("solana-local");
    await solana.pay({ to: deposit.depositAddress, amount: 1_000_000n });
    const run = await cliWithoutDatabase(["--network", "solana-local", "--gap", "3"], { SOLANA_DEPOSIT_SEED: SEED, SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${deposit.depositAddress}  1 USDC  -> (nowhere)  (no destination: give --destination`);
    expect(await solanaBalance(deposit.depositAddress)).toBe(1_000_000n);
  }, 60_000);

  test("with the database: each balance goes to its payment's merchant, a pre-pool (legacy seed) address's too; a dry run sends nothing", async () => {
    const legacySeed = randomBytes(64);
    await api.db.execute(sql`insert into solana_deposit_seeds (id, sealed_seed) values ('solana-deposit-v1', ${api.config.secrets.seal(legacySeed.toString("hex"))})`);
    const id = randomUUID();
    const legacyAddress = depositKeypair(legacySeed, id).publicKey.toBase58();
    const row = paymentRowFactory(api.config)(merchant.id, {
      id,
      network: "solana-local",
      kind: "deposit",
      receiveAddress: legacyAddress,
      tokenAddress: solana.usdc.address.toBase58(),
      merchantWallet: solana.merchant.publicKey.toBase58(),
    });
    await insertPaymentRows(api.db, [row]);
    await solana.pay({ to: legacyAddress, amount: 6_000_000n });
    const before = await solanaBalance(solana.merchant.publicKey);

    const preview = await recoverWithDatabase({ network: "solana-local", gap: "3", "dry-run": true });
    expect(preview).toContain("-> " + solana.merchant.publicKey.toBase58());
    expect(preview).toContain(`${legacyAddress}  6 USDC`);
    expect(preview).toContain("dry run, nothing sent");
    expect(await solanaBalance(solana.merchant.publicKey)).toBe(before);

    const output = await recoverWithDatabase({ network: "solana-local", gap: "3" });
    // The earlier test's unswept 1 USDC, and the legacy address's 6.
    expect(output).toContain("2 balance(s) recovered.");
    expect((await solanaBalance(solana.merchant.publicKey)) - before).toBe(7_000_000n);
  }, 60_000);

  test("refused, sending nothing: no seed, or a destination that cannot spend", async () => {
    const noSeed = await cliWithoutDatabase(["--network", "solana-local", "--destination", Keypair.generate().publicKey.toBase58()], { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey });
    expect({ status: noSeed.status, stderr: noSeed.stderr.trim().split("\n").at(-1) }).toEqual({ status: 2, stderr: "SOLANA_DEPOSIT_SEED is not set: Solana deposit keys derive from it" });
    // A token account given as the destination would take other mints' balances for good.
    const tokenAccount = getAssociatedTokenAddressSync(solana.usdc.address, solana.customer.publicKey).toBase58();
    await expect(recoverWithDatabase({ network: "solana-local", destination: tokenAccount })).rejects.toThrow(UsageError);
  });
});

describe("recover on EVM", () => {
  test("the database lost: the forwarders the merchant's records name are swept, every token, to their merchant wallet", async () => {
    const [a, b] = [await createDeposit("anvil"), await createDeposit("anvil")];
    const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
    const usdt = chain.tokens.find((t) => t.symbol === "USDT")!.address;
    const pay = async (token: Address, to: string, units: bigint) => {
      const hash = await chain.customerWallet.writeContract({ address: token, abi: erc20Abi, functionName: "transfer", args: [getAddress(to), units], account: customer, chain: null });
      await chain.publicClient.waitForTransactionReceipt({ hash });
    };
    await pay(usdc, a.depositAddress, 7_000_000n);
    await pay(usdt, a.depositAddress, 1_500_000n);
    await pay(usdc, b.depositAddress, 4_000_000n);
    const before = { usdc: await evmBalance("USDC", merchantWallet), usdt: await evmBalance("USDT", merchantWallet) };
    // What the merchant kept of every payment answer (a header line, as a spreadsheet exports it).
    const records = join(dir, "deposits.csv");
    writeFileSync(records, ["paymentId,merchantWallet,depositAddress", ...[a, b].map((d) => `${d.id},${merchantWallet},${d.depositAddress}`)].join("\n"));

    const run = await cliWithoutDatabase(["--network", "anvil", "--deposits", records], { OPERATOR_PRIVATE_KEY: operatorKey });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`${getAddress(a.depositAddress)}  7 USDC  -> ${merchantWallet}  tx 0x`);
    expect(run.stdout).toContain("Anvil: 3 balance(s) recovered.");
    expect((await evmBalance("USDC", merchantWallet)) - before.usdc).toBe(11_000_000n);
    expect((await evmBalance("USDT", merchantWallet)) - before.usdt).toBe(1_500_000n);
    expect(await evmBalance("USDC", getAddress(a.depositAddress))).toBe(0n);
    // Again: nothing left to move.
    expect((await cliWithoutDatabase(["--network", "anvil", "--deposits", records], { OPERATOR_PRIVATE_KEY: operatorKey })).stdout.trim()).toBe("Anvil: 0 balance(s) recovered.");
  }, 60_000);

  test("a record whose wallet is not the one its address was made for is reported, and nothing is sent for it", async () => {
    const deposit = await createDeposit("anvil");
    const records = join(dir, "wrong.json");
    writeFileSync(records, JSON.stringify([{ id: deposit.id, merchantWallet: getAddress(customer.address), depositAddress: deposit.depositAddress }]));
    const error = await recoverWithDatabase({ network: "anvil", deposits: records, "dry-run": false }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(CommandFailedError);
    expect((error as Error).message).toContain(`not the forwarder of payment ${deposit.id} and wallet ${getAddress(customer.address)}`);
  });

  test("with the database, its deposit payments are found without a records file", async () => {
    const deposit = await createDeposit("anvil");
    await chain.customerWallet.writeContract({ address: chain.tokens.find((t) => t.symbol === "USDC")!.address, abi: erc20Abi, functionName: "transfer", args: [getAddress(deposit.depositAddress), 2_500_000n], account: customer, chain: null });
    await chain.mine(1);
    const output = await recoverWithDatabase({ network: "anvil", "dry-run": true });
    expect(output).toContain(`${getAddress(deposit.depositAddress)}  2.5 USDC  -> ${merchantWallet}  (dry run: nothing sent)`);
  });

  test("the records file: CSV lines or a JSON array; anything else is a usage error naming the line", () => {
    expect(parseDeposits("paymentId,merchantWallet\nid-1, 0xabc ,0xdef\n\nid-2,0x123")).toEqual([
      { paymentId: "id-1", merchantWallet: "0xabc", depositAddress: "0xdef" },
      { paymentId: "id-2", merchantWallet: "0x123" },
    ]);
    expect(parseDeposits('[{"paymentId":"p","merchantWallet":"w"}]')).toEqual([{ paymentId: "p", merchantWallet: "w" }]);
    expect(() => parseDeposits("only-an-id")).toThrow("line 1 is not paymentId,merchantWallet");
    expect(() => parseDeposits('[{"paymentId":"p"}]')).toThrow("entry 0 needs paymentId (or id) and merchantWallet");
    expect(() => parseDeposits("[oops")).toThrow("--deposits: not JSON");
  });
});
