import { type Address, type Hex, encodeAbiParameters, getContractAddress, keccak256 } from "viem";
import { depositForwarderBytecode } from "../../../contracts/artifacts/index.ts";
import { paymentIdToBytes32 } from "./paymentIdToBytes32.ts";

export type ComputeDepositAddressParameters = {
  /** The `ForwarderFactory`. */
  factory: Address;
  /** The payment's UUID. */
  paymentId: string;
  merchantWallet: Address;
  /**
   * The factory's `forwarderInitCodeHash()`. Defaults to the hash of the `DepositForwarder`
   * in `contracts/artifacts`, which matches only factories compiled from the same source:
   * pass the deployed factory's value if the forwarder source may have changed since.
   */
  forwarderInitCodeHash?: Hex;
};

/** The artifact forwarder's init-code hash, hashed once (hashing the bytecode was most of each derivation). */
let artifactInitCodeHash: Hex | undefined;

/**
 * A payment's deposit address, computed offline: the CREATE2 address at which `factory`
 * deploys the payment's `DepositForwarder`. Equals `ForwarderFactory.computeAddress`.
 */
export function computeDepositAddress(parameters: ComputeDepositAddressParameters): Address {
  const { factory, paymentId, merchantWallet, forwarderInitCodeHash } = parameters;
  const salt = keccak256(
    encodeAbiParameters([{ type: "bytes32" }, { type: "address" }], [paymentIdToBytes32(paymentId), merchantWallet]),
  );
  const bytecodeHash = forwarderInitCodeHash ?? (artifactInitCodeHash ??= keccak256(depositForwarderBytecode));
  return getContractAddress({ opcode: "CREATE2", from: factory, salt, bytecodeHash });
}
