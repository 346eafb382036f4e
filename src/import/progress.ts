// How an import shows its progress: a bar (cli-progress) on a terminal, plain lines otherwise (a
// log file, CI), at most one per PLAIN_EVERY items. Both write to stderr, leaving stdout to the
// summary.
import { Presets, SingleBar } from 'cli-progress';
import { printable, type Progress } from './run-import.js';

const PLAIN_EVERY = 500;

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  return stream.isTTY ? barProgress(stream) : plainProgress(stream);
}

function barProgress(stream: NodeJS.WriteStream): Progress {
  const bar = new SingleBar(
    {
      stream,
      format: 'writing {bar} {percentage}% | {value}/{total} | {skipped} skipped | {eta_formatted} left | {label}',
      hideCursor: true,
      etaBuffer: 200,
    },
    Presets.shades_classic,
  );
  let running = false;
  let total = 0;
  let skipped = 0;
  return {
    expect(count) {
      total += count;
      if (running) bar.setTotal(total);
      else bar.start(total, 0, { label: '', skipped });
      running = true;
    },
    tick(label, skip) {
      if (skip) skipped++;
      const shown = printable(label);
      bar.increment({ label: shown.length > 40 ? `${shown.slice(0, 39)}…` : shown, skipped });
    },
    log(line) {
      // Above the bar, which is drawn again under it.
      if (running) stream.write('\r\u001b[2K');
      stream.write(`${printable(line)}\n`);
      if (running) bar.render();
    },
    stop() {
      if (running) bar.stop();
      running = false;
    },
  };
}

export function plainProgress(stream: { write(text: string): unknown }): Progress {
  let total = 0;
  let done = 0;
  let skipped = 0;
  let told = -1;
  // Skipped items are done too, but not written: the line says how many.
  const tell = () => {
    stream.write(`done ${done} of ${total} items${skipped ? ` (${skipped} skipped)` : ''}\n`);
    told = done;
  };
  return {
    expect(count) {
      if (!total) stream.write('writing\n');
      total += count;
    },
    tick(_label, skip) {
      done++;
      if (skip) skipped++;
      if (done % PLAIN_EVERY === 0) tell();
    },
    log(line) {
      stream.write(`${printable(line)}\n`);
    },
    stop() {
      if (total && told !== done) tell();
    },
  };
}
