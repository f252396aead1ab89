/**
 * What each user holds at once in this process — uploads being extracted (DESIGN §17.3), open streams
 * (§17.5) — so one key cannot take every core, socket or temporary folder of the service. Counted per
 * process: each instance of a scale-out bounds its own share (counting across instances would cost a
 * database write at each start and end, and a crashed instance's count would need leases).
 */
export class UserSlots {
  private readonly held = new Map<string, number>();

  /** Takes one of `userId`'s `limit` slots and returns its release (idempotent); undefined when all are taken. */
  tryTake(userId: string, limit: number): (() => void) | undefined {
    const n = this.held.get(userId) ?? 0;
    if (n >= limit) return undefined;
    this.held.set(userId, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(userId) ?? 1) - 1;
      if (left > 0) this.held.set(userId, left);
      else this.held.delete(userId);
    };
  }
}
