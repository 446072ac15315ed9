import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, unpackAccount } from "@solana/spl-token";
import { PublicKey, Transaction, type Connection, type Keypair } from "@solana/web3.js";
import type { Network, Token } from "../../config/types.ts";
import { claimedSolanaDepositAddresses, depositPaymentsOutsidePool } from "./depositAddressRows.ts";
import { ValidationError } from "../../domain/errors.ts";
import type { RecoveredDeposit, RecoveryContext, RecoveryOptions } from "../types.ts";
import { solanaConnection } from "./connection.ts";
import { depositKeypair, depositSeedId, legacyDepositSeed, poolKeypair } from "./depositKeys.ts";
import { solanaOperator } from "./operator.ts";
import { associatedTokenAccount, tokenProgramOf } from "./tokenAccounts.ts";
import { closeTokenAccount } from "./transfers/closeTokenAccount.ts";

/** A deposit key and where its balances go (null: nowhere known). */
type Candidate = { key: Keypair; destination: string | null };

/**
 * `cli recover` on Solana. Every deposit key derives from SOLANA_DEPOSIT_SEED by index, so the
 * seed and the chain are enough: indexes are read from `fromIndex` until `gap` in a row were
 * never used (no token account of the network's tokens, no transaction), and past the highest
 * index the database handed out, when it is there. Each associated token account of a catalogue
 * token holding a balance is emptied to the destination in one transaction the operator pays
 * (its account closed, the rent back to the operator). The destination is the operator's
 * `destination`, else the payment's merchant wallet from the database; with neither, the
 * balance is reported and left. With the database and a legacy sealed seed, the addresses of
 * payments from before the pool are read as well.
 */
export async function recoverDeposits(ctx: RecoveryContext, network: Network, options: RecoveryOptions): Promise<RecoveredDeposit[]> {
  const seed = ctx.config.solana.depositSeed;
  if (!seed) throw new ValidationError("SOLANA_DEPOSIT_SEED", "SOLANA_DEPOSIT_SEED is not set: Solana deposit keys derive from it");
  const operator = solanaOperator(ctx.config);
  if (!operator && !options.dryRun) throw new ValidationError("SOLANA_OPERATOR_SECRET_KEY", "SOLANA_OPERATOR_SECRET_KEY is not set: it pays the sweeps' fees (or give --dry-run)");
  const connection = solanaConnection(network, "confirmed", 20_000);
  const claimed = ctx.db ? await claimedSolanaDepositAddresses(ctx.db, depositSeedId(seed)) : new Map<number, { paymentId: string; merchantWallet: string | null }>();
  const lastClaimed = Math.max(-1, ...claimed.keys());
  const found: RecoveredDeposit[] = [];

  let unused = 0;
  for (let index = options.fromIndex; unused < options.gap || index <= lastClaimed; index++) {
    const key = poolKeypair(seed, index);
    const candidate = { key, destination: options.destination ?? claimed.get(index)?.merchantWallet ?? null };
    const { used, balances } = await readDeposit(connection, network, key.publicKey);
    unused = used || claimed.has(index) ? 0 : unused + 1;
    for (const balance of balances) found.push(await recover(connection, network, operator, candidate, balance, options.dryRun));
  }
  if (ctx.db) {
    const legacy = await legacyDepositSeed(ctx.db, ctx.config.secrets);
    for (const payment of legacy ? await depositPaymentsOutsidePool(ctx.db, network.chainId) : []) {
      const key = depositKeypair(legacy!, payment.id);
      if (key.publicKey.toBase58() !== payment.receiveAddress) continue;
      const { balances } = await readDeposit(connection, network, key.publicKey);
      for (const balance of balances) found.push(await recover(connection, network, operator, { key, destination: options.destination ?? payment.merchantWallet }, balance, options.dryRun));
    }
  }
  return found;
}

type Balance = { token: Token; account: PublicKey; amount: bigint };

/** The balances of the network's tokens an address's associated token accounts hold, and whether the address was ever used. */
async function readDeposit(connection: Connection, network: Network, owner: PublicKey): Promise<{ used: boolean; balances: Balance[] }> {
  const accounts = network.tokens.map((token) => ({ token, account: associatedTokenAccount(owner, new PublicKey(token.address), tokenProgramOf(token)) }));
  const infos = await connection.getMultipleAccountsInfo(
    accounts.map((a) => a.account),
    "confirmed",
  );
  const balances = accounts.flatMap(({ token, account }, i) => {
    const info = infos[i];
    if (!info) return [];
    const amount = unpackAccount(account, info, tokenProgramOf(token)).amount;
    return amount > 0n ? [{ token, account, amount }] : [];
  });
  // An address whose accounts were swept and closed has its transactions still.
  const used = infos.some(Boolean) || (await connection.getSignaturesForAddress(owner, { limit: 1 }, "confirmed")).length > 0;
  return { used, balances };
}

/** Empties one token account to the candidate's destination (its associated token account there, created if missing); reported either way. */
async function recover(connection: Connection, network: Network, operator: Keypair | null, candidate: Candidate, balance: Balance, dryRun: boolean): Promise<RecoveredDeposit> {
  const { key, destination } = candidate;
  const report = { address: key.publicKey.toBase58(), token: balance.token.symbol, amount: balance.amount, to: destination };
  if (!destination) return { ...report, txHash: null, note: "no destination: give --destination (no database names this address's merchant)" };
  if (dryRun) return { ...report, txHash: null, note: "dry run: nothing sent" };
  const program = tokenProgramOf(balance.token);
  const mint = new PublicKey(balance.token.address);
  const to = associatedTokenAccount(destination, mint, program);
  const transaction = new Transaction().add(
    createAssociatedTokenAccountIdempotentInstruction(operator!.publicKey, to, new PublicKey(destination), mint, program),
    createTransferCheckedInstruction(balance.account, mint, to, key.publicKey, balance.amount, balance.token.decimals, [], program),
  );
  transaction.add(...(await closeTokenAccount(connection, { account: balance.account, mint, token: balance.token, program, owner: key.publicKey, rentTo: operator!.publicKey })));
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
  transaction.feePayer = operator!.publicKey;
  transaction.recentBlockhash = blockhash;
  transaction.sign(operator!, key);
  const signature = await connection.sendRawTransaction(transaction.serialize());
  const { value } = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, "confirmed");
  if (value.err) return { ...report, txHash: signature, note: `failed on chain: ${JSON.stringify(value.err)}` };
  return { ...report, txHash: signature };
}
