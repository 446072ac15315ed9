import { encodeFunctionData, type Address, type Hex } from "viem";
import { forwarderFactoryAbi } from "../../../contracts/artifacts/index.ts";
import { paymentIdToBytes32 } from "./paymentIdToBytes32.ts";

/** Gas for one deploy-and-sweep (the first one also deploys the forwarder: ~255k with a plain token). */
export const SWEEP_GAS = 300_000n;

export type EncodeDeployAndSweepParameters = {
  /** The payment's uuid. */
  paymentId: string;
  merchantWallet: Address;
  token: Address;
  /** The merchant's wallet (a sweep) or a customer's refund address. */
  to: Address;
  /** Smallest units. */
  amount: bigint;
};

/** Calldata for `ForwarderFactory.deployAndSweep`: deploys the payment's forwarder if needed and moves `amount`. */
export function encodeDeployAndSweep(parameters: EncodeDeployAndSweepParameters): Hex {
  return encodeFunctionData({
    abi: forwarderFactoryAbi,
    functionName: "deployAndSweep",
    args: [paymentIdToBytes32(parameters.paymentId), parameters.merchantWallet, parameters.token, parameters.to, parameters.amount],
  });
}

/** Calldata for `ForwarderFactory.deployAndSweepNative`: deploys the payment's forwarder if needed and moves `amount` wei of native coin. */
export function encodeDeployAndSweepNative(parameters: Omit<EncodeDeployAndSweepParameters, "token">): Hex {
  return encodeFunctionData({
    abi: forwarderFactoryAbi,
    functionName: "deployAndSweepNative",
    args: [paymentIdToBytes32(parameters.paymentId), parameters.merchantWallet, parameters.to, parameters.amount],
  });
}
