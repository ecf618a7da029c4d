/**
 * The lease a session drives its run under, kept: renewed by a timer and
 * inline, extended over calls that may block the event loop (the cover),
 * and lost when a renewal is refused or fails. The first layer of
 * {@link Session} (src/driver/session.ts), with the session's stop state
 * (src/driver/stop.ts), which a lost lease sets.
 */
import type { Lease } from "../store/index.js";
import { after, newAbortController } from "../web.js";
import type { DriverContext } from "./context.js";
import { leaseLost, type Stop } from "./stop.js";

export abstract class LeaseKeeper {
  /** How the session stopped, once it did: the one state of every way it stops. */
  protected stop: Stop | undefined;
  protected readonly agentAbort = newAbortController();
  protected cancelRenewal: (() => void) | undefined;
  /** When the lease is next due for renewal, by the driver's clock. */
  private renewDue = 0;
  /** When each call (or preview) in flight may end at the latest, by the driver's clock: the lease covers them (see {@link cover}). */
  private readonly covers: number[] = [];
  /** Until when the lease is held at least, by the driver's clock: when its last acquisition or renewal was asked for, plus the time to live asked. */
  protected heldUntil = 0;

  constructor(
    protected readonly ctx: DriverContext,
    protected lease: Lease,
  ) {}

  /** Throws when the lease was lost meanwhile: the session must stop writing at once. */
  protected checkLease(): void {
    if (this.stop?.kind === "lease_lost") throw leaseLost();
  }

  private renewEvery(): number {
    return Math.max(1, Math.floor(this.ctx.leaseTtlMs / 3));
  }

  /**
   * Renews by a timer, a third of the lease's time to live apart. A run whose
   * agent and tools answer at once never yields to timers (every await is a
   * microtask), so the journal's flush also renews inline when renewal is
   * due ({@link renewIfDue}).
   */
  protected startRenewal(): void {
    const every = this.renewEvery();
    this.renewDue = this.ctx.clock.now() + every;
    // A renewal in flight when the session ends (it cancels, and forgets, the renewal) arms no next one.
    const tick = (): void => {
      this.cancelRenewal = after(every, () => void this.renew().then(() => this.cancelRenewal && this.stop?.kind !== "lease_lost" && tick()));
    };
    tick();
  }

  /** Renews when renewal is due; throws when the lease is lost already. */
  protected async renewIfDue(): Promise<void> {
    this.checkLease();
    if (this.ctx.clock.now() >= this.renewDue) await this.renew();
  }

  /**
   * The lease cover (issue 26). A call may block the event loop up to its
   * timeout (a tool that computes synchronously, an interpreter that cannot
   * be interrupted), and no renewal timer fires meanwhile: before it starts,
   * the lease must outlast the timeout by a renewal period, and every
   * renewal until the call ends keeps that much. When the lease already
   * does (a timeout short beside the lease's time to live), nothing is
   * asked of the store; otherwise it is renewed for longer, and the flush
   * after the call brings it back to its own time to live. The price: a
   * driver that dies during a long call leaves the run to another owner
   * only after the call's timeout has passed (the call may still be running
   * there). Returns what ends the cover; a lease lost stops the session
   * before the call starts.
   */
  protected async cover(timeoutMs: number): Promise<() => void> {
    const until = this.ctx.clock.now() + timeoutMs;
    this.covers.push(until);
    const extend = until + this.renewEvery() > this.heldUntil;
    if (extend) await this.renew();
    this.checkLease();
    return () => {
      this.covers.splice(this.covers.indexOf(until), 1);
      if (extend) this.renewDue = 0;
    };
  }

  /** The time to live a renewal asks for: the lease's own, or enough to outlast every covered call by a renewal period. */
  private ttl(): number {
    return Math.max(this.ctx.leaseTtlMs, Math.max(0, ...this.covers) + this.renewEvery() - this.ctx.clock.now());
  }

  private async renew(): Promise<void> {
    const asked = this.ctx.clock.now();
    const ttl = this.ttl();
    this.renewDue = asked + this.renewEvery();
    try {
      const renewed = await this.ctx.store.renewLease(this.lease, ttl);
      if (renewed === null) this.loseLease();
      else {
        this.lease = renewed;
        this.heldUntil = asked + ttl;
      }
    } catch {
      this.loseLease();
    }
  }

  private loseLease(): void {
    this.stop = { kind: "lease_lost" };
    this.agentAbort.abort(new Error("lease lost"));
  }
}
