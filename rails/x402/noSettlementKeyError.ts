/** Raised if the API's facilitator ever tries to move money: it holds no key, by design. */
export class NoSettlementKeyError extends Error {
  override name = "NoSettlementKeyError";
}

export const refuseToSettle = async (): Promise<never> => {
  throw new NoSettlementKeyError("the API holds no key that moves money: settlements are submitted by the worker");
};
