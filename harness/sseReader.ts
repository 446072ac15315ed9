/** Reads Server-Sent Events from a streaming response: `next()` is the next event's name and data, or null after `ms`. */
export function sseReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let pending: Promise<{ done: boolean; value?: Uint8Array }> | null = null;
  const events: Array<{ event: string; data: string }> = [];
  let comments = 0;
  return {
    /** Comment lines (heartbeats) read so far. */
    comments: () => comments,
    async next(ms: number): Promise<{ event: string; data: string } | null> {
      const until = Date.now() + ms;
      while (events.length === 0) {
        const left = until - Date.now();
        if (left <= 0) return null;
        pending ??= reader.read();
        const result = await Promise.race([pending, Bun.sleep(left).then(() => null)]);
        if (!result) return null;
        pending = null;
        if (result.done) return null;
        buffer += decoder.decode(result.value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(":")) comments++;
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data });
        }
      }
      return events.shift()!;
    },
    cancel: () => reader.cancel(),
  };
}
