/** A one-line progress bar on stderr, drawn only when stderr is a terminal (never part of a verb's output). */

/** Starts a progress bar labelled `label`; `update` redraws it at most every 50 ms, `done` ends its line. */
export function progressBar(label: string): { update: (done: number, total: number) => void; done: () => void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let drawn = false;
  return {
    update(done, total) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 50 && done < total) return;
      last = now;
      const width = 30;
      const filled = Math.round((done / Math.max(1, total)) * width);
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
      drawn = true;
    },
    done() {
      if (drawn) process.stderr.write('\n');
    },
  };
}
