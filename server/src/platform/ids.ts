import { v7 } from 'uuid';

/** A new record id: UUID v7, time-ordered so indexes stay compact. */
export function newId(): string {
  return v7();
}
