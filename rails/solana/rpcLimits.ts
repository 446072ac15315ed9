/** The most signatures one `getSignatureStatuses` call may name (the node refuses more). */
export const STATUSES_PER_CALL = 256;
