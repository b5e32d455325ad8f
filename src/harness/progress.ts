// The progress bar on stderr: redrawn in place on a terminal, one line per finished run otherwise.

/** Counts finished runs by outcome and shows them. */
export class Progress {
  private done = 0;
  private readonly counts: Record<string, number> = { correct: 0, wrong: 0, blocked: 0, error: 0 };

  constructor(
    private readonly total: number,
    private readonly out: NodeJS.WriteStream | { write(s: string): unknown; isTTY?: boolean } = process.stderr,
  ) {}

  /** One run finished with `outcome`; `what` names it for the line-per-run form. */
  tick(outcome: string, what: string): void {
    this.done += 1;
    this.counts[outcome] = (this.counts[outcome] ?? 0) + 1;
    const tally = Object.entries(this.counts)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    if (this.out.isTTY) {
      const width = 30;
      const filled = this.total === 0 ? width : Math.round((width * this.done) / this.total);
      const bar = `${"#".repeat(filled)}${".".repeat(width - filled)}`;
      this.out.write(`\r[${bar}] ${this.done}/${this.total} runs (${tally})${this.done === this.total ? "\n" : ""}`);
    } else this.out.write(`bench ${this.done}/${this.total} ${what}: ${outcome}\n`);
  }

  /** Ends the bar's line early (the batch stopped). */
  end(): void {
    if (this.out.isTTY && this.done < this.total) this.out.write("\n");
  }
}
