import type { ModuleFactory } from '../../platform/module';
import { onboardingRoutes } from './onboarding.routes';

/** Home: the new-organization checklist (the home lists of tasks live in the tasks module). */
export const homeModule: ModuleFactory = (context) => ({
  name: 'home',
  routes: onboardingRoutes({ db: context.db }),
});
