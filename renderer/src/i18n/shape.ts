/**
 * The shape a section of strings has in every language: each key is a string or one level of
 * named strings. A section's `en` is typed with it against its `ru`.
 */
export type Shape<T> = {
  [K in keyof T]: T[K] extends string ? string : Record<string, string>;
};
