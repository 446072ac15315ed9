/**
 * A progress line on stderr for long CLI runs: units done of total, rate and ETA. On a
 * terminal it redraws in place; otherwise (logs, CI) it prints a line every few seconds.
 */
export function progressBar(unit: string, out: NodeJS.WriteStream = process.stderr) {
  const started = performance.now();
  let lastLine = started;
  const draw = (done: bigint, total: bigint, final = false) => {
    const now = performance.now();
    if (!final && !out.isTTY && now - lastLine < 3_000) return;
    lastLine = now;
    const seconds = (now - started) / 1000;
    const rate = seconds > 0 ? Number(done) / seconds : 0;
    const left = rate > 0 ? Number(total - done) / rate : 0;
    const share = total > 0n ? Number((done * 1000n) / total) / 1000 : 1;
    const width = 24;
    const filled = Math.round(share * width);
    const line = `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${unit} · ${rate.toFixed(0)} ${unit}/s · ETA ${left.toFixed(0)} s`;
    out.write(out.isTTY ? `\r${line}${final ? "\n" : ""}` : `${line}\n`);
  };
  return { update: (done: bigint, total: bigint) => draw(done, total), done: (done: bigint, total: bigint) => draw(done, total, true) };
}
