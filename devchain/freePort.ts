import { createServer } from "node:net";

/** A TCP port on 127.0.0.1 that was free a moment ago (for local chains, databases, servers). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : undefined;
      server.close(() => (port === undefined ? reject(new Error("no port assigned")) : resolve(port)));
    });
  });
}
