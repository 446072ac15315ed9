import { getAddress } from "viem";
import { evmClient } from "../../../evm/client.ts";
import { deployForwarderFactory } from "../../../evm/settlement/index.ts";
import { findFactory, saveFactory } from "../books.ts";
import { localChains } from "../localChains.ts";
import { relayerAccount } from "../relayerAccount.ts";
import type { RelayerDeps } from "./sendTransfer.ts";

/**
 * The relayer's own ForwarderFactory on every chain it serves (operator and owner: the
 * relayer), deployed where the books name none, another relayer's, or an address without
 * code (a recreated local chain). Deposit addresses are its CREATE2 forwarders, so the
 * relayer can collect or refund a deposit in one transaction and holds no key per address.
 */
export async function ensureFactories(deps: RelayerDeps): Promise<void> {
  const relayer = relayerAccount(deps.config).address;
  for (const network of localChains(deps.config)) {
    const known = await findFactory(deps.db, network.chainId);
    if (known && getAddress(known.relayer) === relayer) {
      const code = await evmClient(network, 20_000).getCode({ address: getAddress(known.address) });
      if (code && code !== "0x") continue;
    }
    const address = await deployForwarderFactory({
      rpcUrl: network.rpcUrl!,
      chainId: Number(network.chainId),
      deployerPrivateKey: deps.config.bridge.local!.relayerPrivateKey!,
      operator: relayer,
      owner: relayer,
    });
    await saveFactory(deps.db, network.chainId, relayer, address);
    deps.logger.info({ chain: network.shortName, factory: address }, "local relayer: forwarder factory deployed");
  }
}
