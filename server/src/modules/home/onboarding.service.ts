import type { Onboarding } from '@shared/api/tasks';
import type { z } from 'zod';
import type { AuthContext } from '../../platform/auth/auth-context';
import type { Db } from '../../platform/db/db';
import { organizationHasForms } from '../forms/forms.service';
import * as members from '../identity/members.service';
import { organizationHasTasks } from '../tasks/tasks.service';

export interface OnboardingDeps {
  db: Db;
}

/**
 * The new-organization checklist (form, colleagues, task), each step computed from the
 * organization's data, so it needs no bookkeeping of its own.
 */
export async function getOnboarding(deps: OnboardingDeps, auth: AuthContext): Promise<z.infer<typeof Onboarding>> {
  const { organizationId } = auth;
  const [form, people, task, dismissed] = await Promise.all([
    organizationHasForms(deps.db, organizationId),
    members.memberCount(deps.db, organizationId),
    organizationHasTasks(deps.db, organizationId),
    members.onboardingDismissed(deps.db, organizationId),
  ]);
  const steps = [
    { key: 'form' as const, done: form },
    { key: 'colleagues' as const, done: people > 1 },
    { key: 'task' as const, done: task },
  ];
  return { steps, completed: steps.every((step) => step.done), dismissed };
}

/** Hides the checklist for the whole organization; dismissing again changes nothing. */
export function dismissOnboarding(deps: OnboardingDeps, auth: AuthContext): Promise<void> {
  return members.dismissOnboarding(deps.db, auth.organizationId);
}
