// The rebuild's progress as `projections rebuild` shows it.
import cliProgress from 'cli-progress';
import type { CliOutput } from './output.js';

/** A progress bar on a terminal; elsewhere a note per second. Positions are log positions, up to the head. */
export class RebuildProgress {
  private bar: cliProgress.SingleBar | null = null;
  private generation: number | null = null;
  private lastNote = 0;

  constructor(
    private readonly output: CliOutput,
    private readonly name: string,
  ) {}

  update(generation: number, position: number, head: number): void {
    const total = Math.max(head, position, 1);
    if (this.generation !== generation) {
      this.generation = generation;
      this.stop();
      this.output.note(`building generation ${generation} of '${this.name}'`);
    }
    if (this.output.progress) {
      if (!this.bar) {
        this.bar = new cliProgress.SingleBar(
          {
            stream: this.output.progress,
            format: `${this.name} g${generation} [{bar}] {percentage}% | position {value}/{total}`,
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        );
        this.bar.start(total, position);
      } else {
        this.bar.setTotal(total);
        this.bar.update(position);
      }
    } else if (Date.now() - this.lastNote >= 1000) {
      this.lastNote = Date.now();
      this.output.note(`generation ${generation}: position ${position}/${total}`);
    }
  }

  finish(generation: number, head: number): void {
    if (this.bar) {
      this.bar.setTotal(Math.max(head, 1));
      this.bar.update(Math.max(head, 1));
    }
    this.stop();
    if (this.generation === null) this.output.note(`generation ${generation} built`);
  }

  /** A note between bar redraws: the bar is closed first and reopened by the next update. */
  note(text: string): void {
    this.stop();
    this.output.note(text);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}
