import { getBase58Codec } from "@solana/kit";
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import type { FileNetworkInput } from "../config/index.ts";
import { startSolanaDevChain, type SolanaDevChain, type TestMint } from "@stablepay/devchain/solana";

export type SolanaTestChain = {
  chain: SolanaDevChain;
  connection: Connection;
  usdc: TestMint;
  /** Token-2022 with a 1% transfer fee (at most 1 token), withheld at the recipient. */
  feeToken: TestMint;
  customer: Keypair;
  operator: Keypair;
  merchant: Keypair;
  operatorSecretKey: string;
  network: FileNetworkInput;
  /** A wallet's transfer: recipient's ATA created if needed, `transferChecked`, optional reference key (Solana Pay). Confirmed before it returns. */
  pay(options: { to: PublicKey | string; amount: bigint; mint?: TestMint; reference?: string; from?: Keypair; toTokenAccount?: PublicKey }): Promise<string>;
  /** Sends instructions signed by `signers` (the first pays), without waiting. */
  send(instructions: TransactionInstruction[], signers: Keypair[]): Promise<string>;
  stop(): Promise<void>;
};

/**
 * A local Solana chain for tests (litesvm behind the loopback RPC), with a USDC-like
 * mint, a Token-2022 mint with a transfer fee, a funded customer and operator, and the
 * network entry the service is configured with. `slotMs: 0` (default) produces slots
 * only when a test says so, so commitment moves exactly when the test wants.
 */
export async function startSolanaTestChain(
  options: { slotMs?: number; finalityDepth?: number; requiredConfirmations?: number; wsUrl?: string; blockhashValiditySlots?: number; genesisHash?: string } = {},
): Promise<SolanaTestChain> {
  const finalityDepth = options.finalityDepth ?? 4;
  const chain = await startSolanaDevChain({ slotMs: options.slotMs ?? 0, finalityDepth, blockhashValiditySlots: options.blockhashValiditySlots, genesisHash: options.genesisHash });
  const connection = new Connection(chain.rpcUrl, "confirmed");
  const usdc = await chain.createMint({ decimals: 6 });
  const feeToken = await chain.createMint({ decimals: 6, tokenProgram: "token-2022", transferFee: { basisPoints: 100, maximumFee: 1_000_000n } });
  const customer = (await chain.createFundedCustomer({ tokens: [{ mint: usdc, amount: 1_000_000_000_000n }, { mint: feeToken, amount: 1_000_000_000_000n }] })).keypair;
  const operator = Keypair.generate();
  await chain.airdrop(operator.publicKey, 100n * BigInt(LAMPORTS_PER_SOL));
  const merchant = Keypair.generate();
  chain.advanceSlots(1);

  async function send(instructions: TransactionInstruction[], signers: Keypair[]): Promise<string> {
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
    const transaction = new Transaction({ feePayer: signers[0]!.publicKey, blockhash, lastValidBlockHeight }).add(...instructions);
    transaction.sign(...signers);
    return connection.sendRawTransaction(transaction.serialize());
  }

  return {
    chain,
    connection,
    usdc,
    feeToken,
    customer,
    operator,
    merchant,
    operatorSecretKey: getBase58Codec().decode(operator.secretKey),
    network: {
      name: "Solana Test",
      shortName: "solana-local",
      chainId: chain.ledger.clock.genesisHash,
      type: "solana",
      isTestnet: true,
      isLocal: true,
      requiredConfirmations: options.requiredConfirmations ?? finalityDepth,
      tokens: [
        { symbol: "USDC", name: "USD Coin (test)", address: usdc.address.toBase58(), decimals: 6 },
        { symbol: "FEEUSD", name: "Fee-charging test dollar", address: feeToken.address.toBase58(), decimals: 6, tokenProgram: "token-2022" },
      ],
      rpcUrl: chain.rpcUrl,
      wsUrl: options.wsUrl ?? chain.wsUrl,
    },
    send,
    async pay({ to, amount, mint = usdc, reference, from = customer, toTokenAccount }) {
      const owner = new PublicKey(to);
      const destination = toTokenAccount ?? getAssociatedTokenAddressSync(mint.address, owner, true, mint.programId);
      const source = getAssociatedTokenAddressSync(mint.address, from.publicKey, true, mint.programId);
      const transfer = createTransferCheckedInstruction(source, mint.address, destination, from.publicKey, amount, mint.decimals, [], mint.programId);
      if (reference) transfer.keys.push({ pubkey: new PublicKey(reference), isSigner: false, isWritable: false });
      const instructions = toTokenAccount ? [transfer] : [createAssociatedTokenAccountIdempotentInstruction(from.publicKey, destination, owner, mint.address, mint.programId), transfer];
      const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash("confirmed");
      const transaction = new Transaction({ feePayer: from.publicKey, blockhash, lastValidBlockHeight }).add(...instructions);
      transaction.sign(from);
      const signature = await connection.sendRawTransaction(transaction.serialize());
      if ((options.slotMs ?? 0) === 0) chain.advanceSlots(1); // confirms it
      for (let i = 0; i < 200; i++) {
        const { value } = await connection.getSignatureStatuses([signature]);
        if (value[0]?.confirmationStatus === "confirmed" || value[0]?.confirmationStatus === "finalized") break;
        await Bun.sleep(25);
      }
      return signature;
    },
    stop: () => chain.stop(),
  };
}
