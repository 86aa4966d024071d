/**
 * A part of the P2P node with a lifecycle (as js-libp2p's `Startable`): every step is optional.
 * The node's parts are built and wired first (p2p-components.ts), then one ordered list of them
 * (`Lifecycle`) loads, starts, stops and closes them.
 */
export interface Component {
  readonly name: string;
  /** The components that must be started before this one (and stopped after it). */
  readonly needs: readonly string[];
  /** Once per node, before its first start (stores read, chain listeners set). */
  load?(): Promise<void> | void;
  start?(): Promise<void> | void;
  /**
   * Networking is going off: called on every started component, last started first, before any
   * stops, so that none takes new work while the others stop (the host reads as gone).
   */
  halt?(): void;
  stop?(): Promise<void> | void;
  /** Once, when the node closes, after its stop. */
  close?(): Promise<void> | void;
}

/** A component listed before one it needs: the list is refused when it is built, not at run time. */
export class ComponentOrderError extends Error {
  readonly code = 'COMPONENT_ORDER';
}

/**
 * The components in their start order: loaded once, started in order (a failed start stops those
 * started, last first), stopped and closed in reverse. Each component's `needs` must come before it.
 */
export class Lifecycle {
  private readonly components: readonly Component[];
  private started: Component[] = [];
  private loaded = false;

  constructor(components: readonly Component[]) {
    const seen = new Set<string>();
    for (const component of components) {
      if (seen.has(component.name)) {
        throw new ComponentOrderError(`component '${component.name}' is listed twice`);
      }
      for (const need of component.needs) {
        if (!seen.has(need)) {
          throw new ComponentOrderError(
            `component '${component.name}' needs '${need}', which does not start before it`,
          );
        }
      }
      seen.add(component.name);
    }
    this.components = components;
  }

  /** The names, in start order. */
  get order(): string[] {
    return this.components.map((component) => component.name);
  }

  async start(): Promise<void> {
    if (!this.loaded) {
      for (const component of this.components) await component.load?.();
      this.loaded = true;
    }
    for (const component of this.components) {
      try {
        await component.start?.();
      } catch (error) {
        await this.stop();
        throw error;
      }
      this.started.push(component);
    }
  }

  async stop(): Promise<void> {
    const started = this.started.reverse();
    this.started = [];
    for (const component of started) component.halt?.();
    for (const component of started) await component.stop?.();
  }

  async close(): Promise<void> {
    await this.stop();
    if (!this.loaded) return;
    for (const component of [...this.components].reverse()) await component.close?.();
  }
}

/**
 * The hooks of a component before its wiring step: any use throws, naming the component, so that
 * a part used before the second step fails at once and clearly.
 */
export function notWired<T extends object>(component: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      throw new Error(`${component} used before it was wired (${String(property)})`);
    },
  });
}
