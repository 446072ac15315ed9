/** A payment id that is not a UUID (8-4-4-4-12 hex digits). */
export class InvalidPaymentIdError extends Error {
  override name = "InvalidPaymentIdError";
  readonly paymentId: string;
  constructor(paymentId: string) {
    super(`payment id ${JSON.stringify(paymentId)} is not a UUID`);
    this.paymentId = paymentId;
  }
}

/** `token` and `intent.token` name different contracts: the approval would not cover the payment. */
export class PaymentTokenMismatchError extends Error {
  override name = "PaymentTokenMismatchError";
  constructor(token: string, intentToken: string) {
    super(`token ${token} is not the intent's token ${intentToken}`);
  }
}

/** A contract deployment was mined but reverted or created no contract. */
export class ContractDeployError extends Error {
  override name = "ContractDeployError";
  readonly transactionHash: string;
  constructor(contractName: string, transactionHash: string, reason: string) {
    super(`${contractName} deployment ${transactionHash} ${reason}`);
    this.transactionHash = transactionHash;
  }
}
