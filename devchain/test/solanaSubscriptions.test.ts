import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AccountLayout, createTransferCheckedInstruction, getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { getBase58Decoder } from "@solana/kit";
import { type Context, Connection, Keypair, type Logs, type PublicKey, type SignatureResult, Transaction } from "@solana/web3.js";
import { startSolanaDevChain, type SolanaDevChain, type TestMint } from "../solana/index.ts";

// web3.js subscriptions (onLogs, onAccountChange, onSignature, onSlotChange) over the devchain's PubSub.
let chain: SolanaDevChain;
let connection: Connection;
let usdc: TestMint;
let customer: Keypair;
let merchantAta: PublicKey;
const merchant = Keypair.generate();

beforeAll(async () => {
  chain = await startSolanaDevChain({ slotMs: 0, finalityDepth: 2 });
  // No wsEndpoint: web3.js finds the PubSub at the RPC port + 1, as with a validator.
  connection = new Connection(chain.rpcUrl, "confirmed");
  usdc = await chain.createMint();
  merchantAta = (await chain.mintTo(usdc, merchant.publicKey, 0n)).tokenAccount;
  ({ keypair: customer } = await chain.createFundedCustomer({ tokens: [{ mint: usdc, amount: 50_000_000n }] }));
  chain.finalize();
});

afterAll(async () => {
  await chain.stop();
});

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 5) {
    if (waited > 3000) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

function pay(amount: bigint): Promise<string> {
  const transaction = new Transaction().add(
    createTransferCheckedInstruction(getAssociatedTokenAddressSync(usdc.address, customer.publicKey), usdc.address, merchantAta, customer.publicKey, amount, 6),
  );
  return connection.sendTransaction(transaction, [customer]);
}

describe("PubSub subscriptions", () => {
  test("onLogs(mentions), onAccountChange and onSignature fire when the payment reaches their commitment", async () => {
    const logs: [Logs, Context][] = [];
    const balances: [bigint, Context][] = [];
    const finalizedSignatures: SignatureResult[] = [];
    const processedLogs: Logs[] = [];
    const before = chain.subscriptionCount();
    const logsId = connection.onLogs(merchantAta, (entry, context) => logs.push([entry, context]), "confirmed");
    const accountId = connection.onAccountChange(
      merchantAta,
      (account, context) => balances.push([AccountLayout.decode(account.data).amount, context]),
      { commitment: "confirmed" },
    );
    const allId = connection.onLogs("all", (entry) => processedLogs.push(entry), "processed");
    await waitFor(() => chain.subscriptionCount() === before + 3, "subscriptions");

    const signature = await pay(2_500_000n);
    connection.onSignature(signature, (result) => finalizedSignatures.push(result), "finalized");
    await waitFor(() => processedLogs.some((entry) => entry.signature === signature), "processed logs");
    expect(logs).toHaveLength(0); // not confirmed yet

    const slot = chain.slot();
    chain.advanceSlots(1);
    await waitFor(() => logs.length === 1 && balances.length === 1, "confirmed notifications");
    expect(logs[0]![0]).toMatchObject({ signature, err: null });
    expect(logs[0]![0].logs).toContain("Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA success");
    expect(logs[0]![1].slot).toBe(slot);
    expect(balances[0]![0]).toBe(2_500_000n);
    expect(finalizedSignatures).toHaveLength(0);

    chain.advanceSlots(1);
    await waitFor(() => finalizedSignatures.length === 1, "finalized signature");
    expect(finalizedSignatures[0]).toEqual({ err: null });

    await connection.removeOnLogsListener(logsId);
    await connection.removeOnLogsListener(allId);
    await connection.removeAccountChangeListener(accountId);
    await waitFor(() => chain.subscriptionCount() === before, "unsubscribes");
  });

  test("onSignature for a transaction already confirmed fires with the next slot", async () => {
    const signature = await pay(1n);
    chain.advanceSlots(1);
    const results: SignatureResult[] = [];
    const before = chain.subscriptionCount();
    connection.onSignature(signature, (result) => results.push(result), "confirmed");
    await waitFor(() => chain.subscriptionCount() === before + 1, "subscription");
    chain.advanceSlots(1);
    await waitFor(() => results.length === 1, "signature notification");
    expect(results).toEqual([{ err: null }]);
  });

  test("a failed payment: receipt notification, then the status with its error", async () => {
    const events: string[] = [];
    const transaction = new Transaction().add(
      createTransferCheckedInstruction(getAssociatedTokenAddressSync(usdc.address, customer.publicKey), usdc.address, merchantAta, customer.publicKey, 10n ** 12n, 6),
    );
    transaction.recentBlockhash = (await connection.getLatestBlockhash("processed")).blockhash;
    transaction.feePayer = customer.publicKey;
    transaction.sign(customer);
    const signature = getBase58Decoder().decode(transaction.signatures[0]!.signature!);
    const before = chain.subscriptionCount();
    // web3.js drops this listener after its first notification, so receipt and status need one each.
    connection.onSignatureWithOptions(signature, (notification) => events.push(notification.type), {
      commitment: "processed",
      enableReceivedNotification: true,
    });
    connection.onSignature(signature, (result) => events.push(JSON.stringify(result.err)), "processed");
    await waitFor(() => chain.subscriptionCount() === before + 2, "subscriptions");
    await connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true });
    await waitFor(() => events.length === 2, "received and status");
    expect(events).toEqual(["received", '{"InstructionError":[0,{"Custom":1}]}']);
  });

  test("onSlotChange and onProgramAccountChange", async () => {
    const slots: number[] = [];
    const programChanges: string[] = [];
    const before = chain.subscriptionCount();
    const slotId = connection.onSlotChange((info) => slots.push(info.slot));
    const programId = connection.onProgramAccountChange(TOKEN_PROGRAM_ID, (info) => programChanges.push(info.accountId.toBase58()), {
      commitment: "processed",
      filters: [{ dataSize: 165 }],
    });
    await waitFor(() => chain.subscriptionCount() === before + 2, "subscriptions");
    const tip = chain.advanceSlots(2);
    await waitFor(() => slots.length === 2, "slot notifications");
    expect(slots).toEqual([tip - 1, tip]);
    await pay(3n);
    await waitFor(() => programChanges.length === 2, "program notifications");
    expect(programChanges).toContain(merchantAta.toBase58());
    await connection.removeSlotChangeListener(slotId);
    await connection.removeProgramAccountChangeListener(programId);
  });
});
