import { erc20Abi, getAddress, isAddress, type Address } from "viem";
import type { Network } from "../../config/types.ts";
import { depositPaymentsOn } from "../../db/depositPayments.ts";
import { ValidationError } from "../../domain/errors.ts";
import { uuidPattern } from "../../domain/uuid.ts";
import type { RecoveredDeposit, RecoveryContext, RecoveryOptions } from "../types.ts";
import { evmClient } from "./client.ts";
import { operatorWallet } from "./operator.ts";
import { computeDepositAddress, encodeDeployAndSweep, SWEEP_GAS } from "./settlement/index.ts";

/**
 * `cli recover` on EVM. A deposit address is the ForwarderFactory's CREATE2 forwarder of
 * (payment id, merchant wallet): no key, nothing to enumerate from a secret. The deposits come
 * from the merchant's records (`--deposits`: every payment answer and `payment.created`
 * webhook names the id and the address; the wallet is the merchant's own), and from the
 * database when it is there. Each token of the network a forwarder holds is swept, by the
 * factory's operator (OPERATOR_PRIVATE_KEY), to that forwarder's merchant wallet: the only
 * place recovery sends EVM deposits, whatever `destination` says. A named address that is not
 * the forwarder of its id and wallet is reported and left.
 */
export async function recoverDeposits(ctx: RecoveryContext, network: Network, options: RecoveryOptions): Promise<RecoveredDeposit[]> {
  if (!network.forwarderFactory) throw new ValidationError("network", `${network.name} has no ForwarderFactory configured`);
  if (!ctx.config.operatorPrivateKey && !options.dryRun) throw new ValidationError("OPERATOR_PRIVATE_KEY", "OPERATOR_PRIVATE_KEY is not set: the factory's operator alone sweeps (or give --dry-run)");
  const factory = getAddress(network.forwarderFactory);
  const named = options.deposits.map((d) => ({ id: d.paymentId, merchantWallet: d.merchantWallet, receiveAddress: d.depositAddress ?? null }));
  const stored = ctx.db ? await depositPaymentsOn(ctx.db, network.chainId) : [];
  const seen = new Set<string>();
  const client = evmClient(network, 20_000);
  const found: RecoveredDeposit[] = [];
  for (const deposit of [...named, ...stored]) {
    if (!uuidPattern.test(deposit.id) || !isAddress(deposit.merchantWallet, { strict: false })) {
      found.push({ address: deposit.receiveAddress ?? "?", token: "-", amount: 0n, to: null, txHash: null, note: `not a payment id and wallet: ${deposit.id}, ${deposit.merchantWallet}` });
      continue;
    }
    const merchantWallet = getAddress(deposit.merchantWallet);
    const address = computeDepositAddress({ factory, paymentId: deposit.id, merchantWallet });
    if (seen.has(address)) continue;
    seen.add(address);
    if (deposit.receiveAddress && getAddress(deposit.receiveAddress) !== address) {
      found.push({ address: deposit.receiveAddress, token: "-", amount: 0n, to: null, txHash: null, note: `not the forwarder of payment ${deposit.id} and wallet ${merchantWallet} (that is ${address}): another wallet?` });
      continue;
    }
    for (const token of network.tokens) {
      const amount = await client.readContract({ address: getAddress(token.address), abi: erc20Abi, functionName: "balanceOf", args: [address] });
      if (amount === 0n) continue;
      const report = { address, token: token.symbol, amount, to: merchantWallet as string };
      if (options.dryRun) {
        found.push({ ...report, txHash: null, note: "dry run: nothing sent" });
        continue;
      }
      const data = encodeDeployAndSweep({ paymentId: deposit.id, merchantWallet, token: getAddress(token.address) as Address, to: merchantWallet, amount });
      const wallet = operatorWallet(ctx.config, network);
      const hash = await wallet.sendTransaction({ to: factory, data, gas: SWEEP_GAS, account: wallet.account!, chain: wallet.chain });
      const receipt = await client.waitForTransactionReceipt({ hash, timeout: 120_000 });
      found.push({ ...report, txHash: hash, ...(receipt.status === "success" ? {} : { note: "reverted on chain" }) });
    }
  }
  return found;
}
