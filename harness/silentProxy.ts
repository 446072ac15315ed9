import net from "node:net";

/**
 * A TCP proxy that can go silent: its connections stay open but carry nothing either way,
 * as across a network partition (packets dropped, no reset), and new connections are
 * accepted and left unanswered. `speak()` lets bytes through again.
 */
export async function startSilentProxy(target: { host: string; port: number }) {
  let silent = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on("data", (bytes) => void (silent || to.write(bytes)));
      from.on("error", () => {});
      from.on("close", () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    /** `url` with its host and port replaced by the proxy's. */
    via(url: string) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    silence: () => void (silent = true),
    speak: () => void (silent = false),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
export type SilentProxy = Awaited<ReturnType<typeof startSilentProxy>>;
