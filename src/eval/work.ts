// A unit-counted work budget with an optional wall-clock deadline, shared by the analysis's
// exact methods. Units are loop steps of the painter (cells and words touched), so a budget
// bounds CPU the same way on every machine; the deadline is what the deep pass is capped by.

/** Thrown when the budget or the deadline runs out; `timeUp` tells which. */
export class OverBudget extends Error {
  constructor(readonly timeUp = false) {
    super(timeUp ? 'analysis deadline reached' : 'analysis work budget spent');
  }
}

/** How often (in units) the deadline is looked at: Date.now() costs more than a unit. */
const CLOCK_EVERY = 1 << 18;

export class Work {
  private untilClock = 0; // the first spend looks at the clock

  /** `left`: units (Infinity: none); `deadline`: epoch ms (Date.now(), the same in every thread);
   * `cancel`: a flag another thread sets (word 0 not 0) to end the work as at its deadline. */
  constructor(public left: number, private readonly deadline = Infinity, private readonly cancel?: Int32Array) {}

  spend(n: number): void {
    this.left -= n;
    if (this.left < 0) throw new OverBudget(false);
    if ((this.untilClock -= n) <= 0) {
      this.untilClock = CLOCK_EVERY;
      this.checkClock();
    }
  }

  checkClock(): void {
    if (this.deadline !== Infinity && Date.now() > this.deadline) throw new OverBudget(true);
    if (this.cancel && Atomics.load(this.cancel, 0) !== 0) throw new OverBudget(true);
  }
}
