/** Exchange rates against the US dollar, as one source gave them at one time. */
export type RatesSnapshot = {
  base: "USD";
  /** Units of each currency per one US dollar, exact decimal strings ("EUR": "0.92"). */
  rates: Record<string, string>;
  /** When the source says the rates were last updated. */
  updatedAt: Date;
  /** `static`, or the host of the HTTP source. */
  source: string;
  /** Older than the configured maximum age: shown, never used to price a payment. */
  stale: boolean;
};

/** Where rates come from; implementations cache and report staleness themselves. */
export interface RatesProvider {
  readonly source: string;
  /** The latest rates; throws RateUnavailableError when there are none at all. */
  current(): Promise<RatesSnapshot>;
}
