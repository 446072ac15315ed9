import { expect, test } from "bun:test";
import { encodePonderCheckpoint } from "../../harness/fixtures.ts";

// The integration tests write indexer progress with this fixture; it must be Ponder's own format,
// or they would test `db/indexerProgress.ts` against a format Ponder never writes.
test("the checkpoint fixture encodes exactly as Ponder 0.16 does", async () => {
  const ponderCheckpoint = "../../node_modules/ponder/src/utils/checkpoint.ts";
  const { encodeCheckpoint, decodeCheckpoint } = await import(ponderCheckpoint);
  const checkpoint = {
    blockTimestamp: 1_763_700_000n,
    chainId: 31337n,
    blockNumber: 123_456n,
    transactionIndex: 9_999_999_999_999_999n,
    eventType: 9,
    eventIndex: 9_999_999_999_999_999n,
  };
  const encoded = encodePonderCheckpoint(checkpoint);
  expect(encoded).toBe("176370000000000000000313370000000000123456999999999999999999999999999999999");
  expect(encoded).toBe(encodeCheckpoint(checkpoint));
  expect(decodeCheckpoint(encoded)).toEqual(checkpoint);
  // db/indexerProgress.ts reads the block number as characters 27..42 (1-based).
  expect(encoded.substring(26, 42)).toBe("0000000000123456");
});
