/**
 * The Solana rail's methods that need Solana's libraries (@solana/web3.js, @solana/kit,
 * @solana/spl-token: ~18 MB per process). `index.ts` loads this module on first use, so
 * a deployment without a Solana network never loads them.
 */
export { replaySlots } from "./ingest/replaySlots.ts";
export { balanceOf } from "./balanceOf.ts";
export { chainHead, finalizedHead } from "./chainHead.ts";
export { contractDescription } from "./contractDescription.ts";
export { operatorStatus } from "./operatorStatus.ts";
export { replenishDepositPool } from "./depositPool.ts";
export { recoverDeposits } from "./recoverDeposits.ts";
export { solanaMerchantSignedRefunds } from "./signedRefunds/merchantSignedRefunds.ts";
export { preparePayment } from "./preparePayment.ts";
export { refundAddressProblem, settlementWalletProblem } from "./refundAddressProblem.ts";
export { cancelTransferOut } from "./transfers/cancelTransferOut.ts";
export { executeTransferOut } from "./transfers/executeTransferOut.ts";
export { refreshEvidence, verifySubmission } from "./verifySubmission.ts";
export { transactionSender } from "./transactionSender.ts";
export { depositAccounts, paymentUri, walletInstructions } from "./walletInstructions.ts";
