/** Options given to a factory: any of them may be absent or `undefined`. */
export type GivenOptions<D> = { readonly [K in keyof D]?: D[K] | undefined };

/** The defaults, each replaced by the given value's type where one may be given; the rest as given. */
export type WithDefaults<D, O> = {
  [K in keyof D]: K extends keyof O ? Exclude<O[K], undefined> | D[K] : D[K];
} & Omit<O, keyof D>;

/**
 * The one way every package merges the options it is given with its defaults (`DEFAULT_X_OPTIONS`
 * beside each factory): a given value wins, an absent or `undefined` one takes the default; options
 * without a default (a directory, a callback) come through as given. Shallow: a nested object
 * option is merged by calling it again on that object.
 */
export function withDefaults<D extends object, O extends object>(
  defaults: D,
  options: O | undefined,
): WithDefaults<D, O> {
  const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
  if (options !== undefined) {
    for (const [key, value] of Object.entries(options)) {
      if (value !== undefined) merged[key] = value;
    }
  }
  return merged as WithDefaults<D, O>;
}
