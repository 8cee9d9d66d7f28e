import type { Db } from '../../platform/db/db';
import { createEventBus } from '../../platform/events';
import type { Logger } from '../../platform/logging';
import { operator } from './billing.service';

export const USAGE = `Usage: npm run billing -- <command> ORG …
  block ORG                      block the organization's writes (402 billing_blocked) until a payment or unblock
  unblock ORG                    lift the block
  adjust ORG KOPECKS REASON…     add (or, negative, take away) an amount in kopecks, with a reason kept in the ledger
  threshold ORG KOPECKS          block the organization whenever its balance falls below this (default 0)
ORG is the organization's id or its exact name.`;

/** What a run of the operator's command printed and how it ended. */
export interface CliOutcome {
  exitCode: number;
  output: string;
}

const KOPECKS = /^-?\d{1,15}$/;

function kopecks(text: string): string {
  const sign = text.startsWith('-') ? '-' : '';
  const digits = text.replace('-', '').padStart(3, '0');
  return `${sign}${Number(digits.slice(0, -2))}.${digits.slice(-2)} ₽`;
}

/** Runs one operator command against `db` (the installation's database). */
export async function runBillingCommand(db: Db, logger: Pick<Logger, 'error'>, args: string[]): Promise<CliOutcome> {
  const [command, reference, ...rest] = args;
  if (!command || !reference || !['block', 'unblock', 'adjust', 'threshold'].includes(command)) {
    return { exitCode: 2, output: USAGE };
  }
  const deps = { db, events: createEventBus(logger) };
  const found = await operator.findOrganizations(deps, reference);
  if (found.length !== 1) {
    return {
      exitCode: 1,
      output:
        found.length === 0
          ? `No organization has the id or name "${reference}".`
          : `Several organizations are named "${reference}": give the id (${found.map((o) => o.id).join(', ')}).`,
    };
  }
  const org = found[0] as { id: string; name: string };
  switch (command) {
    case 'block':
    case 'unblock': {
      const changed = await operator.setBlocked(deps, org.id, command === 'block');
      const state = command === 'block' ? 'blocked' : 'not blocked';
      return { exitCode: 0, output: `${org.name} (${org.id}) is ${state}${changed ? '' : ' (it already was)'}.` };
    }
    case 'adjust': {
      const [amount, ...words] = rest;
      const reason = words.join(' ').trim();
      if (!amount || !KOPECKS.test(amount) || Number(amount) === 0 || !reason) {
        return { exitCode: 2, output: `adjust needs a non-zero whole number of kopecks and a reason.\n${USAGE}` };
      }
      const after = await operator.adjust(deps, org.id, Number(amount), reason);
      return {
        exitCode: 0,
        output: `${org.name}: ${kopecks(amount)} (${reason}); balance ${kopecks(String(after.balance))}${after.blocked ? ', below the threshold: blocked' : ''}.`,
      };
    }
    default: {
      const [amount] = rest;
      if (!amount || !KOPECKS.test(amount)) {
        return { exitCode: 2, output: `threshold needs a whole number of kopecks.\n${USAGE}` };
      }
      const after = await operator.setThreshold(deps, org.id, Number(amount));
      return {
        exitCode: 0,
        output: `${org.name}: threshold ${kopecks(amount)}; balance ${kopecks(String(after.balance))}${after.blocked ? ', below it: blocked' : ''}.`,
      };
    }
  }
}
