import { type Address, type Hex, encodeDeployData, zeroAddress } from "viem";
import { paymentSettlementAbi, paymentSettlementBytecode } from "../../../contracts/artifacts/index.ts";
import { sendDeployment } from "./sendDeployment.ts";

export type DeploySettlementParameters = {
  rpcUrl: string;
  chainId: number;
  deployerPrivateKey: Hex;
  /** Signs payment intents. */
  operator: Address;
  /** May replace the operator and the settler. */
  owner: Address;
  /** Settles x402 authorizations (the worker's operator account); default none: no x402 settlements. */
  settler?: Address;
};

/** Deploys `PaymentSettlement` and resolves with its checksummed address once mined. */
export function deploySettlement(parameters: DeploySettlementParameters): Promise<Address> {
  const { operator, owner, settler = zeroAddress, ...connection } = parameters;
  return sendDeployment({
    ...connection,
    contractName: "PaymentSettlement",
    deployData: encodeDeployData({ abi: paymentSettlementAbi, bytecode: paymentSettlementBytecode, args: [operator, owner, settler] }),
  });
}
