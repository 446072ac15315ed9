/**
 * A read Relay refused as such: a 4xx other than a timeout (408) or a rate limit (429) — a
 * revoked key, a request id it does not know. Asked again at once it answers the same.
 */
export const refusedRead = (httpStatus: number): boolean => httpStatus >= 400 && httpStatus < 500 && httpStatus !== 408 && httpStatus !== 429;
