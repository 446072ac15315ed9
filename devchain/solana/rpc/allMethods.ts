import { accountMethods } from "./accountMethods.ts";
import { blockMethods } from "./blockMethods.ts";
import { clusterMethods } from "./clusterMethods.ts";
import type { RpcMethods } from "./rpcMethod.ts";
import { sendMethods } from "./sendMethods.ts";
import { tokenMethods } from "./tokenMethods.ts";
import { transactionMethods } from "./transactionMethods.ts";

/** Every HTTP JSON-RPC method the devchain serves. */
export const allMethods: RpcMethods = {
  ...accountMethods,
  ...tokenMethods,
  ...transactionMethods,
  ...sendMethods,
  ...blockMethods,
  ...clusterMethods,
};
